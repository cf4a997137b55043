"""The Loader's options as typed values: :class:`Recipe` (the augmentation), :class:`ReaderOptions`
(the dataset readers), :class:`SamplerOptions` (which samples make up each batch),
:class:`OutputOptions` (what a batch holds and where it lives) and :class:`DaemonOptions` (how a
daemon's batches reach this process).

    loader = textfeed.Loader("data/train", 8, profile="upstage",
                             recipe=textfeed.Recipe(crop_size=512, brightness=(0.8, 1.2)),
                             sampler=textfeed.SamplerOptions(seed=1, drop_last=True))

Each is a frozen dataclass, checked when it is made: a wrong type raises
:class:`textfeed.errors.ArgumentTypeError` (a ``TypeError``), a wrong value
:class:`textfeed.errors.InvalidArgumentError` (a ``ValueError``), naming the attribute, with the
messages of the C++ checks. ``dataclasses.replace(options, name=value)`` makes a changed copy
(checked again). An enum attribute takes the member or its name (``"mask-ignore"``); ints are ints
(never bools), numbers are finite. A keyword that is no attribute is refused with the attributes it
may have meant (``Recipe(croop_size=512)``: did you mean 'crop_size'?).

Recipe's and ReaderOptions' attributes are the rows of the C++ field tables
(``_core.recipe_fields()``, ``_core.reader_fields()``: name, kind, bound, doc); an attribute left
None is the profile's value. The blocks between the GENERATED markers are written from those tables
by ``scripts/gen_docs.py``, whose ``--check`` fails when they are not current. The other three
mirror what the Loader itself decides (``rank=None``: from ``torch.distributed``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import numbers
import os
from collections.abc import Iterable
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, TypeVar, Union, cast

from . import _args, _core, errors
from ._core import DType, IgnoreText, Illegibility, PolyPolicy, ReaderFormat, Transport

__all__ = ["DaemonOptions", "OutputOptions", "ReaderOptions", "Recipe", "SamplerOptions"]

PathArg = Union[str, "os.PathLike[str]"]

# Rows of the recipe's table that another object holds: the image tensor's dtype is the output's.
RECIPE_ROWS_HELD_ELSEWHERE = {"dtype": "OutputOptions.dtype"}
# Attributes whose name is not their row's: `format` would shadow the builtin in the signature.
READER_ATTRIBUTES = {"format": "reader_format"}

_INT32 = (-(2**31), 2**31 - 1)
_RANGE_KINDS = ("factor_range", "shift_range")
_TRIPLE = 3
MAX_SEED = 2**64 - 1
# The feeds take 1 slot, but a ``for`` loop holds the batch it was given while it asks for the next
# (the loop variable is rebound only once the next one arrives): with one slot, the second batch
# could never be made. Two is the least a loop can run on.
MIN_PREFETCH = 2
PAYLOADS = ("full", "compact")


@functools.lru_cache(maxsize=None)
def _rows(table: str) -> Dict[str, Dict[str, Any]]:
    """{row name: row} of _core's ``recipe_fields()`` or ``reader_fields()``."""
    return {row["name"]: row for row in getattr(_core, f"{table}_fields")()}


def _row_name(attribute: str) -> str:
    return next((row for row, attr in READER_ATTRIBUTES.items() if attr == attribute), attribute)


@functools.lru_cache(maxsize=None)
def row_enum(names: Tuple[str, ...]) -> Optional[type]:
    """The extension's enum whose members' ``text`` are ``names`` (IgnoreText, ...), if one is."""
    for value in vars(_core).values():
        members = getattr(value, "__members__", None)
        if isinstance(value, type) and isinstance(members, dict) and members:
            if tuple(getattr(m, "text", None) for m in members.values()) == names:
                return value
    return None


def _float(value: Any) -> float:
    """A real number as a float; an int past the largest float is an infinity (out of every bound)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _number_text(value: Any) -> str:
    """A number as the rows' messages write it (C++'s shortest form: ``1``, ``0.5``, ``nan``)."""
    if isinstance(value, numbers.Integral):
        return _args.int_text(int(value))
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _out_of_row(row: Mapping[str, Any], value_text: str) -> errors.InvalidArgumentError:
    """The row's message for a value outside its bound (base/field_table.cc's out_of_bound), for
    the values C++ cannot even parse: ints past int32, NaN, infinities."""
    must = "" if row["limits"][4] else "in "
    return errors.InvalidArgumentError(f"augment option {row['name']} = {value_text}: must be {must}{row['bound']}")


def _range_out_of_row(row: Mapping[str, Any], lo: float, hi: float) -> errors.InvalidArgumentError:
    """A range's message for a (lo, hi) outside its row's bound (base/field_table.h check_field)."""
    low, high, low_open, high_open, _ = row["limits"]
    return errors.InvalidArgumentError(
        f"augment option {row['name']} = [{_number_text(lo)}, {_number_text(hi)}]: need {_number_text(low)}"
        f"{' < ' if low_open else ' <= '}lo <= hi{' < ' if high_open else ' <= '}{_number_text(high)}")


def _row_int(row: Mapping[str, Any], value: Any) -> int:
    """An int; one C++ cannot parse (past int32; a uint64 row: negative or past 2**64 - 1) is out
    of its row's bound too, and gets the row's message here; the rest C++'s check."""
    v = _args.integral(row["name"], value)
    lo, hi = _INT32 if row["kind"] == "int" else (0, _args.U64_MAX)
    if not lo <= v <= hi:
        raise _out_of_row(row, _number_text(v))
    return v


def _row_real(row: Mapping[str, Any], value: Any) -> float:
    """A finite number; NaN and the infinities get the row's bound here (C++ does not parse them),
    a finite number outside it C++'s check (the one message of every edge)."""
    v = _float(_args.number(row["name"], value))
    if not math.isfinite(v):
        raise _out_of_row(row, _number_text(value if isinstance(value, numbers.Integral) else v))
    return v


def _row_range(row: Mapping[str, Any], value: Any) -> Tuple[float, ...]:
    """A range's (lo, hi) given as a tuple or list, or a triple's three numbers (one per plane)."""
    name, count = row["name"], 2 if row["kind"] in _RANGE_KINDS else _TRIPLE
    if len(value) != count or any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in value):
        shape = "a (lo, hi) pair" if count == 2 else f"{count} numbers, one per image plane"
        raise errors.ArgumentTypeError(f"{name} must be {shape}, got {type(value).__name__} {value!r:.80}")
    v = tuple(_float(x) for x in value)
    if all(math.isfinite(x) for x in v):
        return v
    if count == 2:
        raise _range_out_of_row(row, *v)
    raise _out_of_row(row, _number_text(next(x for x in v if not math.isfinite(x))))


def _row_one_number(row: Mapping[str, Any], value: Any) -> float:
    """A range given as one number b (a factor: [max(0, 1 - b), 1 + b]; a shift: [-b, b])."""
    b = _float(_args.number(row["name"], value))
    if math.isfinite(b):
        return b
    lo, hi = (max(0.0, 1 - b), 1 + b) if row["kind"] == "factor_range" else (-b, b)
    raise _range_out_of_row(row, lo, hi)


def _recipe_value(row: Mapping[str, Any], value: Any) -> Tuple[Any, str]:
    """A recipe attribute's value checked for its row's kind, and the text C++ parses: ints are
    ints, numbers finite, a range ``(lo, hi)`` or one number b (a factor: [max(0, 1 - b), 1 + b];
    a shift: [-b, b]), a triple three numbers, an enum one of its names. What C++ cannot parse
    (an int past int32, NaN) is refused here with the row's bound, the rest by the row's check."""
    name, kind = row["name"], row["kind"]
    if kind in ("int", "uint64"):
        v: Any = _row_int(row, value)
        return v, str(v)
    if kind == "float":
        v = _row_real(row, value)
        return v, repr(v)
    if kind == "bool":
        v = _args.boolean(name, value)
        return v, "true" if v else "false"
    if kind == "enum":
        v = _args.choice(name, value, row["names"])
        return v, v
    if kind in _RANGE_KINDS or kind == "triple":
        if isinstance(value, (tuple, list)):
            v = _row_range(row, value)
            return v, ",".join(repr(x) for x in v)
        if kind == "triple":
            raise errors.ArgumentTypeError(f"{name} must be {_TRIPLE} numbers, one per image plane, got "
                                           f"{type(value).__name__} {value!r:.80}")
        v = _row_one_number(row, value)
        return v, repr(v)
    if kind == "text":
        v = _args.text(name, value)
        return v, v
    raise errors.InternalError(f"recipe option {name} has a kind Python does not know: {kind}")


def recipe_value_of_text(name: str, text: Any) -> Any:
    """The value of recipe attribute ``name`` given as the text its row parses (the Loader's former
    keywords took ``brightness="0.8,1.2"``, ``vertices_f32="true"``): the typed value a Recipe
    takes, or the row's message when the text does not parse or is out of its bound. A text or
    enum row's text is its value."""
    row = _rows("recipe")[name]
    kind = row["kind"]
    if kind in ("text", "enum"):
        return text
    _core.check_recipe_option(name, _args.text(name, text))
    if kind in ("int", "uint64"):
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        return text in ("true", "1")  # the row parses true, 1, false and 0
    parts = tuple(float(x) for x in text.split(","))
    return parts[0] if len(parts) == 1 else parts


def _reader_value(row: Mapping[str, Any], attribute: str, value: Any) -> Any:
    """A reader attribute's value checked for its row's kind: an enum's member, a tuple of names,
    a finite number in the row's bound, a text."""
    kind, limits = row["kind"], row["limits"]
    if kind == "enum":
        enum_type = row_enum(tuple(row["names"]))
        return _args.enum(attribute, value, enum_type) if enum_type else _args.choice(attribute, value, row["names"])
    if kind == "text_list":
        # A mapping iterates over its keys, which nobody means by a list of tags.
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            raise errors.ArgumentTypeError(f"{attribute} must be a list of str, got {type(value).__name__} "
                                           f"{value!r:.80}")
        most = int(limits[1])
        names = list(itertools.islice(value, most + 1))  # an endless iterable is refused, not drained
        if len(names) > most:
            raise errors.InvalidArgumentError(f"{attribute} has more than {most} tags")
        return tuple(_list_entry(attribute, n) for n in names)
    if kind == "float":
        lo, hi, lo_open, _, _ = limits
        return _args.real(attribute, value, lo, hi, lo_open=lo_open)
    if kind == "text":
        return _args.text(attribute, value)
    raise errors.InternalError(f"reader option {attribute} has a kind Python does not know: {kind}")


def _list_entry(attribute: str, value: Any) -> str:
    """One name of a text list: the C++ side keeps the list as one comma-separated text (the CLI's
    ``--ignore-tags a,b``), so a name is not empty and holds no comma."""
    name = _args.text(f"{attribute} entry", value)
    if not name:
        raise errors.InvalidArgumentError(f"{attribute}: a tag is empty (a tag is a non-empty name)")
    if "," in name:
        raise errors.InvalidArgumentError(f"{attribute}: a tag holds a comma, {name!r:.80} (a tag is one name; "
                                          "give each tag as its own entry)")
    return name


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # a frozen dataclass's own normalization, in __post_init__


_Class = TypeVar("_Class", bound=type)


def _keywords_checked(cls: _Class) -> _Class:
    """``cls``, a dataclass, whose ``__init__`` refuses a keyword that is none of its attributes as
    the Loader does (ArgumentTypeError naming the nearest attributes: ``Recipe(croop_size=512)``,
    ``ReaderOptions(format=...)``) instead of dataclass's bare TypeError. Type checkers still see
    dataclass's ``__init__``; ``dataclasses.replace`` goes through this one too."""
    init = getattr(cls, "__init__")
    known = [f.name for f in dataclasses.fields(cast(Any, cls))]

    @functools.wraps(init)
    def checked_init(self: Any, *args: Any, **kwargs: Any) -> None:
        unknown = [k for k in kwargs if k not in known]
        if unknown:
            raise _args.unknown_keywords(cls.__name__, unknown, known)
        init(self, *args, **kwargs)

    setattr(cls, "__init__", checked_init)
    return cls


def _set_fields(obj: Any) -> Dict[str, Any]:
    """{attribute: value} of the attributes that are not None."""
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if getattr(obj, f.name) is not None}


@_keywords_checked
@dataclasses.dataclass(frozen=True)
class Recipe:
    # BEGIN GENERATED: recipe
    """The augmentation: what changes from the profile's recipe. An attribute left None is the
    profile's value (docs/python.md lists each profile's). The attributes are the rows of the C++ field
    table (``textfeed._core.recipe_fields()``), each checked against its row's bound when the Recipe is
    made, with the message every edge gives (the CLI's ``--set``, the wire); the rules between two
    attributes (cut_low <= cut_high, ...) are checked with the profile's values when a Loader is made.
    The image tensor's dtype is :class:`OutputOptions`' (``dtype``). An attribute takes its typed value,
    never the text the CLI's ``--set`` parses: ``brightness=(0.8, 1.2)``, not ``"0.8,1.2"`` (refused);
    the Loader's keywords of before still take that text (``Loader(..., brightness="0.8,1.2")``).

    Attributes:
        image_size (int, 0 (off) or in [32, 32768]): longer side after the resize; 0 = no resize (eval: the canvas
            side).
        crop_size (int in [8, 16384]): square crop side, px.
        map_scale (float in (0, 1]): target map side = int(crop_size * map_scale); 1 / map_scale an integer.
        height_jitter (float in [0, 1)): adjust_height ratio in [1 - j, 1 + j).
        rotate_deg (float in [0, 180]): rotation angle in [-r, r) degrees.
        crop_max_tries (int in [1, 10000]): crop positions tried before the fallback.
        cut_low (float in [0, 1]): a crop try is rejected if cut_low <= a valid word's kept fraction <= cut_high.
        cut_high (float in [0, 1]): see cut_low; cut_low <= cut_high.
        vertices_f32 (bool): float32 vertex arithmetic in resize and adjust_height (Upstage).
        int_vertices (bool): truncate y to integers after adjust_height (SakuraRiven).
        crop_fallback ("keep_last" | "ignore_cut"): what a crop search that never succeeds keeps.
        color_jitter_p (float in [0, 1]): probability that the colour jitter runs at all.
        brightness ((lo, hi) in [0, 10]; or one b >= 0 for [max(0, 1 - b), 1 + b]): brightness factor ~ U[lo, hi]; 1
            = identity.
        contrast ((lo, hi) in [0, 10]; or one b >= 0 for [max(0, 1 - b), 1 + b]): contrast factor ~ U[lo, hi]; 1 =
            identity.
        saturation ((lo, hi) in [0, 10]; or one b >= 0 for [max(0, 1 - b), 1 + b]): saturation factor ~ U[lo, hi]; 1
            = identity.
        hue ((lo, hi) in [-0.5, 0.5]; or one h >= 0 for [-h, h]): hue shift in turns ~ U[lo, hi]; 0 = identity.
        color_math ("fused" | "albumentations_1_3_1" | "albumentations_1_4_12"): the colour operations' arithmetic
            (fused float, or albumentations').
        mean ((a, b, c), one per image plane in [-1000, 1000]): normalize's mean per image plane.
        std ((a, b, c), one per image plane in [1e-06, 1000]): normalize's std per image plane.
        channel_order ("rgb" | "bgr"): the order of the image tensor's planes.
        mask ("roi" | "ignored"): roi (1 = valid, Upstage) or ignored (1 = ignore).
        angle_error ("sr" | "up"): the angle search's error metric (§5 #11).
        fill_rule ("even_odd" | "union"): how overlapping words fill (§5 #1).
        overlap ("sum" | "last" | "smallest" | "ignore"): what overlapping words write to the geometry (§5 #2).
        ignored_targets ("keep" | "none"): whether ignored words keep score and geometry (§5 #6).
        roi_resize ("linear" | "nearest" | "rasterize_at_map"): how the ROI mask reaches the map size (§5 #13).
        fix_orientation (bool): reorder quads clockwise from the top-left first (§5 #10).
        clamp_geo (float in [0, 65536]): clamp the geometry distances to this many px; 0 = off (§5 #17).
        flip_p (float in [0, 1]; db only): probability of a horizontal flip.
        resize ((lo, hi) in (0, 16]; or one b >= 0 for [max(0, 1 - b), 1 + b]; db only): the resize factor ~ U[lo,
            hi].
        min_crop_side (float in (0, 1]; db only): the crop search's smallest crop side, as a share of the image
            side.
        shrink_ratio (float in (0, 1); db only): the text kernel's shrink ratio (Vatti offset).
        thresh_min (float in [0, 1]; db only): the threshold map's low value.
        thresh_max (float in [0, 1]; db only): the threshold map's high value; thresh_min <= thresh_max.
        min_text_size (int in [0, 16384]; db only): px; words whose shorter side is smaller are ignored.
        total_epochs (int in [0, 1073741824]; db only): > 0: the shrink ratio grows by 0.2 * epoch / total_epochs
            (PaddleOCR).
        invalid_polygon ("keep" | "repair" | "ignore"; db only): what a polygon that is not a valid ring becomes.
        compact_masks (bool; psenet, panet only): 0/1 targets as uint8, not float32 (psenet gt_kernels binarised,
            gt_mask; panet gt_mask).
    """

    image_size: Optional[int] = None
    crop_size: Optional[int] = None
    map_scale: Optional[float] = None
    height_jitter: Optional[float] = None
    rotate_deg: Optional[float] = None
    crop_max_tries: Optional[int] = None
    cut_low: Optional[float] = None
    cut_high: Optional[float] = None
    vertices_f32: Optional[bool] = None
    int_vertices: Optional[bool] = None
    crop_fallback: Optional[Literal["keep_last", "ignore_cut"]] = None
    color_jitter_p: Optional[float] = None
    brightness: Union[float, Tuple[float, float], None] = None
    contrast: Union[float, Tuple[float, float], None] = None
    saturation: Union[float, Tuple[float, float], None] = None
    hue: Union[float, Tuple[float, float], None] = None
    color_math: Optional[Literal["fused", "albumentations_1_3_1", "albumentations_1_4_12"]] = None
    mean: Optional[Tuple[float, float, float]] = None
    std: Optional[Tuple[float, float, float]] = None
    channel_order: Optional[Literal["rgb", "bgr"]] = None
    mask: Optional[Literal["roi", "ignored"]] = None
    angle_error: Optional[Literal["sr", "up"]] = None
    fill_rule: Optional[Literal["even_odd", "union"]] = None
    overlap: Optional[Literal["sum", "last", "smallest", "ignore"]] = None
    ignored_targets: Optional[Literal["keep", "none"]] = None
    roi_resize: Optional[Literal["linear", "nearest", "rasterize_at_map"]] = None
    fix_orientation: Optional[bool] = None
    clamp_geo: Optional[float] = None
    flip_p: Optional[float] = None
    resize: Union[float, Tuple[float, float], None] = None
    min_crop_side: Optional[float] = None
    shrink_ratio: Optional[float] = None
    thresh_min: Optional[float] = None
    thresh_max: Optional[float] = None
    min_text_size: Optional[int] = None
    total_epochs: Optional[int] = None
    invalid_polygon: Optional[Literal["keep", "repair", "ignore"]] = None
    compact_masks: Optional[bool] = None
    # END GENERATED: recipe

    def __post_init__(self) -> None:
        rows = _rows("recipe")
        for name, value in _set_fields(self).items():
            checked, text = _recipe_value(rows[name], value)
            _core.check_recipe_option(name, text)  # the row's bound, with validate()'s message
            _set(self, name, checked)

    def _texts(self) -> Dict[str, str]:
        """{option: text} of every attribute that is set, as ``PipelineSpec.set_option`` takes it."""
        rows = _rows("recipe")
        return {name: _recipe_value(rows[name], value)[1] for name, value in _set_fields(self).items()}


@_keywords_checked
@dataclasses.dataclass(frozen=True)
class ReaderOptions:
    # BEGIN GENERATED: reader
    """The dataset readers' options. An attribute left None is the profile's value (docs/python.md
    lists each profile's). The attributes are the rows of the C++ field table
    (``textfeed._core.reader_fields()``; ``reader_format`` is its row ``format``), each checked when
    the ReaderOptions is made. A :class:`textfeed.Source`'s options go over the Loader's. A daemon
    reads its datasets with the options it was started with and refuses others.

    Attributes:
        ignore_text ("substring" | "exact"): ICDAR '###' rule: substring, a word is ignored when '###' occurs
            anywhere in its line (the reference); exact, when its transcription is exactly ### or *.
        ignore_tags (list of str, [0, 256] of them): UFO: word tags whose words are skipped (background), as the
            reference.
        poly_policy ("skip" | "minrect" | "mask-ignore"): EAST quads of words with other than 4 points (UFO: more
            than 4): skip, background (the reference); minrect, their minimum-area rectangle; mask-ignore, that
            rectangle marked ignored (eval polygons keep every point).
        drop_under_area (float in [0, 1e+12]): UFO: words whose convex-hull area (px^2) is below this are dropped
            (the reference: 1).
        ignore_under_area (float in [0, 1e+12]): UFO: words whose convex-hull area (px^2) is below this are marked
            ignored; 0 = off, as the reference.
        images_dir (str, [1, 4096] bytes long): the images folder below the dataset's root (ICDAR-2015; UFO: after
            img/<split>/).
        gt_dir (str, [1, 4096] bytes long): the ground-truth folder below the dataset's root (ICDAR-2015:
            gt_<stem>.txt).
        illegibility ("ignore" | "valid"): UFO 'illegibility': true: ignore, the word is ignored (label 0, the
            Upstage baseline); valid, the flag is not read and every word is valid (the 7th-generation baseline).
        split (str, [1, 255] bytes long): UFO: the annotation file a dataset folder reads: ufo/<split>.json, or
            every <x>_receipt/ufo/<split>.json merged (e.g. train, val, test).
        reader_format ("auto" | "icdar15" | "ufo" | "totaltext" | "ctw1500" | "paddle" | "mmocr"): the dataset's
            annotation format; auto: detected from the path (docs/dataset_layouts.md); paddle: a PaddleOCR label
            file; mmocr: an mmocr OCRDataset json.
    """

    ignore_text: Union[IgnoreText, Literal["substring", "exact"], None] = None
    ignore_tags: Optional[Sequence[str]] = None
    poly_policy: Union[PolyPolicy, Literal["skip", "minrect", "mask-ignore"], None] = None
    drop_under_area: Optional[float] = None
    ignore_under_area: Optional[float] = None
    images_dir: Optional[str] = None
    gt_dir: Optional[str] = None
    illegibility: Union[Illegibility, Literal["ignore", "valid"], None] = None
    split: Optional[str] = None
    reader_format: Union[ReaderFormat, Literal["auto", "icdar15", "ufo", "totaltext", "ctw1500", "paddle", "mmocr"],
                                               None] = None
    # END GENERATED: reader

    def __post_init__(self) -> None:
        rows = _rows("reader")
        core = _core.reader_defaults(_core.Profile.UPSTAGE)
        for attribute, value in _set_fields(self).items():
            row = rows[_row_name(attribute)]
            checked = _reader_value(row, attribute, value)
            _set(self, attribute, checked)
            setattr(core, row["name"], list(checked) if isinstance(checked, tuple) else checked)
        _core.validate_reader_options(core)  # the rows' bounds and rules, with C++'s messages

    def over(self, base: ReaderOptions) -> ReaderOptions:
        """These options, with ``base``'s where this one has None."""
        return dataclasses.replace(base, **_set_fields(self))

    def _to_core(self, profile: Any) -> _core.ReaderOptions:
        """``profile``'s reader options (upstage's when None) with these set: what C++ reads with."""
        core = _core.reader_defaults(_core.Profile.UPSTAGE if profile is None else profile)
        for attribute, value in _set_fields(self).items():
            setattr(core, _row_name(attribute), list(value) if isinstance(value, tuple) else value)
        return core


@_keywords_checked
@dataclasses.dataclass(frozen=True)
class SamplerOptions:
    """Which samples make up each batch of this rank (``DistributedSampler`` semantics).

    Attributes:
        seed: every random draw of sample i in epoch e comes from (seed, e, i); 0..2**64-1.
        rank, world_size: this process's shard; None: from ``torch.distributed`` when it is
            initialized, else 0 and 1. 0 <= rank < world_size <= 2**20.
        shuffle: a new permutation per epoch (off: dataset order).
        drop_last: drop the uneven tail over the ranks and the short last batch.
        epoch_size: weighted sources (``Source(path, weight=...)``): samples drawn per epoch;
            None: the sum of their sizes. Without weights an epoch is every sample once.
    """

    seed: int = 0
    rank: Optional[int] = None
    world_size: Optional[int] = None
    shuffle: bool = True
    drop_last: bool = False
    epoch_size: Optional[int] = None

    def __post_init__(self) -> None:
        _set(self, "seed", _args.integer("seed", self.seed, 0, MAX_SEED))
        _set(self, "rank", _args.optional_integer("rank", self.rank, 0, _core.MAX_WORLD_SIZE - 1))
        _set(self, "world_size", _args.optional_integer("world_size", self.world_size, 1, _core.MAX_WORLD_SIZE))
        _set(self, "shuffle", _args.boolean("shuffle", self.shuffle))
        _set(self, "drop_last", _args.boolean("drop_last", self.drop_last))
        _set(self, "epoch_size", _args.optional_integer("epoch_size", self.epoch_size, 0, _core.MAX_EPOCH_SIZE))
        if self.rank is not None and self.world_size is not None and self.rank >= self.world_size:
            # The Loader's message (loader._shard), which also checks a rank from torch.distributed.
            raise errors.InvalidArgumentError(f"rank must be in 0..world_size-1, got rank {self.rank} of "
                                              f"{self.world_size}")


@_keywords_checked
@dataclasses.dataclass(frozen=True)
class OutputOptions:
    """What a batch holds and where it lives.

    Attributes:
        dtype: :class:`textfeed.DType` of the image tensor: ``"float32"`` (normalized, as the
            references) or ``"uint8"`` (normalize on the GPU).
        pin_memory: page-lock the slots for CUDA when CUDA is available. A slot is refilled only
            after the copies queued from its tensors on the current CUDA stream and device have run
            (copies on other streams must be synchronized by the caller before dropping them).
        prefetch: slots in the ring, allocated once: batches produced ahead plus the ones you
            still hold (a ``for`` loop holds one while it asks for the next, hence at least 2);
            2..``textfeed._core.MAX_PREFETCH`` (64). With an endpoint it is per producer.
        return_polygons: training mode: each batch also carries every sample's polygons after the
            augmentation, in crop pixels (``Batch.polygons``, ``Batch.ignore``).
        payload: with an endpoint, ``"full"`` or ``"compact"``: the daemons send each batch's
            warped uint8 crops (before the colour jitter), colour draws and words, and this
            process's producer threads run the colour jitter, the normalization and the targets
            (about a sixth of the bytes on the network for upstage: 3 MiB per sample instead of
            19, docs/performance.md; the same batches, byte for byte; training with a profile
            whose rows travel compact, as frames).
    """

    dtype: Union[DType, Literal["float32", "uint8"]] = "float32"
    pin_memory: bool = True
    prefetch: int = 4
    return_polygons: bool = False
    payload: Literal["full", "compact"] = "full"

    def __post_init__(self) -> None:
        _set(self, "dtype", _args.enum("dtype", self.dtype, _core.DType))
        _set(self, "pin_memory", _args.boolean("pin_memory", self.pin_memory))
        _set(self, "prefetch", _args.integer("prefetch", self.prefetch, MIN_PREFETCH, _core.MAX_PREFETCH))
        _set(self, "return_polygons", _args.boolean("return_polygons", self.return_polygons))
        _set(self, "payload", _args.choice("payload", self.payload, PAYLOADS))


ServerKeys = Union[PathArg, Sequence[Optional[PathArg]], None]


def _local_dataset(value: Any) -> Any:
    """DaemonOptions.local_dataset checked as the Loader's ``dataset`` is without an endpoint: a
    path, a Source or a list of them (a list is kept as a tuple: an iterator is read once, here)."""
    from . import sources  # here: sources imports this module

    items = sources.source_list(value, "local_dataset")
    for i, item in enumerate(items):
        if not isinstance(item, sources.Source):
            _args.path("local_dataset" if len(items) == 1 and item is value else f"local_dataset[{i}]", item)
    return value if isinstance(value, (str, os.PathLike, sources.Source)) else tuple(items)


@_keywords_checked
@dataclasses.dataclass(frozen=True)
class DaemonOptions:
    """How batches come from ``textfeed serve`` (the Loader's ``endpoint``); without an endpoint
    only ``local_threads`` and ``local_dataset`` are refused, the rest is not used.

    Attributes:
        transport: :class:`textfeed.Transport`: ``"auto"`` (shared memory when the daemon offers
            it: its ipc:// endpoint; frames over tcp), ``"shm"`` (insist) or ``"frames"``.
        timeout: seconds to wait for the daemon's first answer.
        daemon_timeout, reconnect_timeout: seconds of silence after which a daemon is gone, and
            how long to try to reconnect (resuming at the first batch not delivered).
        stall_timeout: with several producers, seconds a daemon may hold the batch the training
            waits for before it is taken for lost (its batches go to the others) though it still
            answers. Every timeout is a finite number of seconds > 0 and at most a day (86400).
        curve_server_key, curve_client_key: key files for a tcp daemon with CURVE
            (``textfeed keygen``). With a list of endpoints, curve_server_key is one file for every
            tcp endpoint (the one endpoint's whatever it is), or a list with one per endpoint
            (None for a daemon without CURVE).
        local_threads: this process's own worker threads as one more producer beside the daemons
            (1..MAX_WORKER_THREADS); None: none.
        local_dataset: what those threads read (what ``dataset`` takes without an endpoint;
            default: the daemons' dataset names taken as paths); it must be the daemons' dataset
            (its fingerprint is checked).
    """

    transport: Union[Transport, Literal["auto", "shm", "frames"]] = "auto"
    timeout: float = 10.0
    daemon_timeout: float = 10.0
    reconnect_timeout: float = 60.0
    stall_timeout: float = 30.0
    curve_server_key: ServerKeys = None
    curve_client_key: Optional[PathArg] = None
    local_threads: Optional[int] = None
    local_dataset: Any = None

    def __post_init__(self) -> None:
        _set(self, "transport", _args.enum("transport", self.transport, _core.Transport))
        for name in ("timeout", "daemon_timeout", "reconnect_timeout", "stall_timeout"):
            _set(self, name, _args.real(name, getattr(self, name), 0, _core.MAX_TIMEOUT_SECONDS, lo_open=True))
        keys = self.curve_server_key
        if isinstance(keys, (list, tuple)):
            for i, key in enumerate(keys):
                if key is not None:
                    _args.path(f"curve_server_key[{i}]", key)
            _set(self, "curve_server_key", tuple(keys))
        elif keys is not None:
            _args.path("curve_server_key", keys)
        if self.curve_client_key is not None:
            _args.path("curve_client_key", self.curve_client_key)
        if self.local_threads is not None:
            _set(self, "local_threads", _args.integer("local_threads", self.local_threads, 1,
                                                      _core.MAX_WORKER_THREADS))
        if self.local_dataset is not None:
            if self.local_threads is None:
                raise errors.InvalidArgumentError("local_dataset without local_threads: give both")
            _set(self, "local_dataset", _local_dataset(self.local_dataset))

    def _timeouts(self) -> Dict[str, float]:
        """The timeouts as _core's openers take them (``timeout_s``, ...)."""
        return {f"{name}_s": getattr(self, name) for name in
                ("timeout", "daemon_timeout", "reconnect_timeout", "stall_timeout")}

    def _server_keys(self, endpoints: List[str]) -> List[bytes]:
        """curve_server_key for ``endpoints``: none, one file for every tcp endpoint (for the one
        endpoint of a list of one, whatever it is), or one per endpoint (b"" where that daemon takes
        no CURVE, e.g. ipc)."""
        value = self.curve_server_key
        if value is None:
            return []
        if isinstance(value, tuple):
            if len(value) != len(endpoints):
                raise errors.InvalidArgumentError(f"curve_server_key lists {len(value)} files for {len(endpoints)} "
                                                  "endpoints: one each (None for a daemon without CURVE)")
            return [b"" if v is None else _args.path(f"curve_server_key[{i}]", v) for i, v in enumerate(value)]
        key = _args.path("curve_server_key", value)
        return [key if e.startswith("tcp://") or len(endpoints) == 1 else b"" for e in endpoints]

    def _client_key(self) -> bytes:
        return b"" if self.curve_client_key is None else _args.path("curve_client_key", self.curve_client_key)
