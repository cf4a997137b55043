// Python bindings of the typed spec (loader/spec/spec.h): the enums of its fields, ReaderOptions,
// SourceSpec, SamplerOptions and PipelineSpec. textfeed.Loader builds one PipelineSpec from its
// keywords and hands it to open_embedded or open_remote; the recipe's fields are set from text
// through set_option(), the one text edge of augment/profile.h. Each enum member's `text` is the
// name the text edges parse (the CLI flags, the Loader's string keywords).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <span>
#include <string>

#include "augment/profile.h"
#include "base/printable.h"
#include "base/tensor.h"
#include "client/feed.h"
#include "client/python/register.h"
#include "loader/spec/spec.h"
#include "loader/spec/spec_fields.h"
#include "transport/wire.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// A path given as str (encoded as the OS does, os.fsencode: any file name round-trips) or bytes.
std::string path_bytes(const py::handle& value) {
  if (py::isinstance<py::bytes>(value)) return value.cast<std::string>();
  if (!py::isinstance<py::str>(value)) throw py::type_error("a path must be a str or bytes");
  py::object encoded = py::reinterpret_steal<py::object>(PyUnicode_EncodeFSDefault(value.ptr()));
  if (!encoded) throw py::error_already_set();
  return encoded.cast<std::string>();
}

py::str path_text(const std::string& path) {
  py::object s = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size())));
  if (!s) throw py::error_already_set();
  return s;
}

template <class E, class NameFn>
py::enum_<E> bind_enum(py::module_& m, const char* name, const char* doc, NameFn name_of) {
  py::enum_<E> e(m, name, doc);
  e.def_property_readonly(
      "text", [name_of](E v) { return std::string(name_of(v)); },
      "the name the text edges take (a Loader keyword given as a str, a CLI flag)");
  return e;
}

// Every registered profile (augment/profile.h profile_entries), its member named in capitals.
void bind_profiles(py::module_& m) {
  auto e = bind_enum<augment::Profile>(m, "Profile",
                                       "Which public pipeline the recipe's defaults reproduce.",
                                       augment::profile_name);
  for (const augment::ProfileEntry& p : augment::profile_entries()) {
    std::string upper(p.name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    e.value(upper.c_str(), p.profile);
  }
  e.def_property_readonly(
      "maps_without_channel_axis",
      [](augment::Profile p) {
        const augment::ProfileEntry* e = augment::find_profile(p);
        return e != nullptr && e->maps_without_channel_axis;
      },
      "Whether the profile's one-channel target maps come as [B, H, W] (its reference's shape).");
}

void bind_enums(py::module_& m) {
  bind_profiles(m);
  bind_enum<DType>(m, "DType", "Element type of the image tensor.", dtype_name)
      .value("FLOAT32", DType::kF32)
      .value("UINT8", DType::kU8);
  bind_enum<loader::OnBadSample>(
      m, "OnBadSample",
      "What a sample that cannot be used does to its batch: SKIP (training: a "
      "replacement, reported), FAIL, REPORT (eval: a blank row reported missing).",
      loader::on_bad_sample_name)
      .value("SKIP", loader::OnBadSample::kSkip)
      .value("FAIL", loader::OnBadSample::kFail)
      .value("REPORT", loader::OnBadSample::kReport);
  bind_enum<loader::Mode>(
      m, "Mode", "What a pipeline makes of each sample: augmented crops or evaluation batches.",
      loader::mode_name)
      .value("TRAIN", loader::Mode::kTrain)
      .value("EVAL", loader::Mode::kEval);
  bind_enum<transport::Transport>(m, "Transport", "How a daemon's batches travel.",
                                  transport::transport_name)
      .value("AUTO", transport::Transport::kAuto)
      .value("SHM", transport::Transport::kSharedMemory)
      .value("FRAMES", transport::Transport::kFrames);
  bind_enum<loader::IgnoreText>(m, "IgnoreText",
                                "How a `###` in an ICDAR line marks the word ignored.",
                                loader::ignore_text_name)
      .value("SUBSTRING", loader::IgnoreText::kSubstring)
      .value("EXACT", loader::IgnoreText::kExact);
  bind_enum<loader::PolyPolicy>(m, "PolyPolicy", "What a UFO word with more than 4 points becomes.",
                                loader::poly_policy_name)
      .value("SKIP", loader::PolyPolicy::kSkip)
      .value("MINRECT", loader::PolyPolicy::kMinRect)
      .value("MASK_IGNORE", loader::PolyPolicy::kMaskIgnore);
  bind_enum<loader::Illegibility>(m, "Illegibility",
                                  "What a UFO word's \"illegibility\": true makes of it.",
                                  loader::illegibility_name)
      .value("IGNORE", loader::Illegibility::kIgnore)
      .value("VALID", loader::Illegibility::kValid);
  bind_enum<loader::ReaderFormat>(m, "ReaderFormat",
                                  "Which reader reads a dataset (auto: detected from the path).",
                                  loader::reader_format_name)
      .value("AUTO", loader::ReaderFormat::kAuto)
      .value("ICDAR15", loader::ReaderFormat::kIcdar15)
      .value("UFO", loader::ReaderFormat::kUfo)
      .value("TOTALTEXT", loader::ReaderFormat::kTotalText)
      .value("CTW1500", loader::ReaderFormat::kCtw1500)
      .value("PADDLE", loader::ReaderFormat::kPaddle)
      .value("MMOCR", loader::ReaderFormat::kMmocr);
}

void bind_reader(py::module_& m) {
  using loader::ReaderOptions;
  py::class_<ReaderOptions>(m, "ReaderOptions",
                            "Options of the dataset readers (loader/spec/spec.h ReaderOptions).")
      .def(py::init<>())
      .def_readwrite("ignore_text", &ReaderOptions::ignore_text)
      .def_readwrite("ignore_tags", &ReaderOptions::ignore_tags)
      .def_readwrite("poly_policy", &ReaderOptions::poly_policy)
      .def_readwrite("drop_under_area", &ReaderOptions::drop_under_area)
      .def_readwrite("ignore_under_area", &ReaderOptions::ignore_under_area)
      .def_readwrite("images_dir", &ReaderOptions::images_dir)
      .def_readwrite("gt_dir", &ReaderOptions::gt_dir)
      .def_readwrite("illegibility", &ReaderOptions::illegibility)
      .def_readwrite("split", &ReaderOptions::split)
      .def_readwrite("format", &ReaderOptions::format)
      .def(
          "__eq__", [](const ReaderOptions& a, const ReaderOptions& b) { return a == b; },
          py::arg("other"));
}

void bind_source(py::module_& m) {
  using loader::ReaderOptions;
  using loader::SourceSpec;
  py::class_<SourceSpec>(m, "SourceSpec",
                         "Where samples come from: a dataset path, or a daemon's dataset name.")
      .def(py::init([](const py::object& path, const ReaderOptions& reader, double weight) {
             return SourceSpec{path_bytes(path), reader, weight};
           }),
           py::arg("path"), py::arg("reader") = ReaderOptions(), py::arg("weight") = 0.0)
      .def_property(
          "path", [](const SourceSpec& s) { return path_text(s.path); },
          [](SourceSpec& s, const py::object& path) { s.path = path_bytes(path); })
      .def_readwrite("reader", &SourceSpec::reader)
      .def_readwrite("weight", &SourceSpec::weight,
                     "0: no weight (every source 0, or every one > 0)");
}

void bind_sampler(py::module_& m) {
  using loader::SamplerOptions;
  py::class_<SamplerOptions>(m, "SamplerOptions", "Which samples make up each batch of a rank.")
      .def(py::init<>())
      .def_readwrite("seed", &SamplerOptions::seed)
      .def_readwrite("batch_size", &SamplerOptions::batch_size)
      .def_readwrite("rank", &SamplerOptions::rank)
      .def_readwrite("world_size", &SamplerOptions::world_size)
      .def_readwrite("shuffle", &SamplerOptions::shuffle)
      .def_readwrite("drop_last", &SamplerOptions::drop_last)
      .def_readwrite("epoch_size", &SamplerOptions::epoch_size,
                     "weighted sources: draws per epoch (0: their sizes' sum)")
      .def(
          "set_resume",
          [](SamplerOptions& o, uint64_t epoch,
             const std::vector<std::tuple<int, int, std::vector<uint64_t>>>& stages) {
            o.resume.epoch = epoch;
            o.resume.stages.clear();
            for (const auto& [world_size, batch_size, batches] : stages)
              o.resume.stages.push_back({world_size, batch_size, batches});
          },
          py::arg("epoch"), py::arg("stages"),
          "An elastic resume of `epoch`: stages of (world_size, batch_size, [batches per rank, or "
          "one for all]).")
      .def_property_readonly("resume", [](const SamplerOptions& o) {
        py::list stages;
        for (const loader::ResumeStage& st : o.resume.stages)
          stages.append(py::make_tuple(st.world_size, st.batch_size, st.batches));
        return py::make_tuple(o.resume.epoch, stages);
      });
}

void bind_pipeline_spec(py::module_& m) {
  using loader::PipelineSpec;
  py::class_<PipelineSpec>(m, "PipelineSpec",
                           "Everything a training job asks of the pipeline (loader/spec/spec.h): "
                           "sources, the recipe, the "
                           "sampler, the bad-sample policy. Checked as a whole by validate().")
      .def(py::init([](augment::Profile profile, const py::object& path) {
             return loader::default_spec(profile, path_bytes(path));
           }),
           py::arg("profile"), py::arg("path") = py::str(""),
           "The defaults of `profile`, reading `path`.")
      .def_readwrite("sources", &PipelineSpec::sources,
                     "a list of SourceSpec (assign a new list to change it)")
      .def_readwrite("sampler", &PipelineSpec::sampler)
      .def_readwrite("on_bad_sample", &PipelineSpec::on_bad_sample)
      .def_readwrite("mode", &PipelineSpec::mode)
      .def_readwrite("return_polygons", &PipelineSpec::return_polygons)
      .def_property_readonly("profile", [](const PipelineSpec& s) { return s.augment.profile; })
      .def_property(
          "dtype", [](const PipelineSpec& s) { return s.augment.dtype; },
          [](PipelineSpec& s, DType t) { s.augment.dtype = t; })
      .def(
          "set_option",
          [](PipelineSpec& s, const std::string& name, const std::string& value) {
            if (Status st = augment::set_option(s.augment, name, value); !st.ok()) throw_status(st);
          },
          py::arg("name"), py::arg("value"),
          "Sets the recipe field `name` (option_names()) from its text, e.g. ('crop_size', '512'); "
          "validate() checks the bound.")
      .def(
          "validate",
          [](const PipelineSpec& s) {
            if (Status st = loader::validate(s); !st.ok()) throw_status(st);
          },
          "Raises InvalidArgumentError naming the first field out of its bound.")
      .def("__repr__", [](const PipelineSpec& s) {
        return valid_utf8("PipelineSpec(" + loader::describe(s) + ")");
      });
}

// ---- the field tables as Python sees them: _core.recipe_fields(), reader_fields(),
// sampler_fields() ----

// One dict per row of `table`: name, kind (base/field_table.h field_kind_name), syntax (the text
// it takes), doc, family ('' = every profile), bound ('' = none) and limits ((lo, hi, lo_open,
// hi_open, zero_is_off) or None), enum names, and the default of each profile as text.
template <class O>
py::list field_rows(std::span<const Field<O>> table, O (*defaults)(augment::Profile)) {
  py::list rows;
  for (const Field<O>& f : table) {
    py::dict row;
    row["name"] = std::string(f.name);
    row["kind"] = std::string(field_kind_name(f.kind));
    row["syntax"] = field_syntax(f.kind, f.names);
    row["doc"] = std::string(f.doc);
    row["family"] = std::string(f.family);
    const bool bounded = field_kind_bounded(f.kind);
    row["bound"] = bounded ? field_bound_text(f.kind, f.bound) : std::string();
    row["limits"] = bounded ? py::object(py::make_tuple(f.bound.lo, f.bound.hi, f.bound.lo_open,
                                                        f.bound.hi_open, f.bound.zero_is_off))
                            : py::none();
    py::list names;
    for (const EnumName& e : f.names) names.append(std::string(e.name));
    row["names"] = names;
    py::dict by_profile;
    for (const augment::ProfileEntry& p : augment::profile_entries())
      by_profile[py::str(std::string(p.name))] = field_text(defaults(p.profile), f);
    row["defaults"] = by_profile;
    rows.append(row);
  }
  return rows;
}

py::list recipe_fields() {
  return field_rows<augment::AugmentOptions>(augment::recipe_fields(), augment::profile_defaults);
}
py::list reader_fields() {
  return field_rows<loader::ReaderOptions>(loader::reader_fields(), loader::reader_defaults);
}
py::list sampler_fields() {
  return field_rows<loader::SamplerOptions>(
      loader::sampler_fields(), [](augment::Profile) { return loader::SamplerOptions{}; });
}

void bind_field_tables(py::module_& m) {
  m.def("recipe_fields", &recipe_fields,
        "The recipe's field table (augment/profile.h recipe_fields()): one dict per option with "
        "its name, kind, syntax (the text it takes), doc, family ('' = every profile), bound, "
        "enum names and default per profile (as text).");
  m.def("reader_fields", &reader_fields,
        "The reader options' field table (loader/spec/spec_fields.h), as recipe_fields() gives "
        "the recipe's: a text's bound is on its bytes, a text list's on its names.");
  m.def("sampler_fields", &sampler_fields,
        "The sampler options' field table (loader/spec/spec_fields.h), as recipe_fields() gives "
        "the recipe's (every profile has the same defaults).");
}

// ---- what textfeed.Recipe and textfeed.ReaderOptions check when they are built ----

// Sets the row `name` of `table` in `options` from `text` and checks it against the row's bound,
// with the messages validate() gives ("augment option crop_size = 7: must be in [8, 16384]").
template <class O>
void check_row(std::span<const Field<O>> table, O options, std::string_view what,
               const std::string& name, const std::string& text) {
  const Field<O>* row = find_field(table, name);
  if (row == nullptr)
    throw_status(Status::invalid_argument("unknown " + std::string(what) + " '" + name +
                                          "' (known: " + field_names(table) + ")"));
  if (Status s = set_field_text(options, *row, text); !s.ok()) throw_status(s);
  if (Status s = check_field(options, *row, what); !s.ok()) throw_status(s);
}

void bind_option_checks(py::module_& m) {
  m.def(
      "check_recipe_option",
      [](const std::string& name, const std::string& value) {
        check_row<augment::AugmentOptions>(augment::recipe_fields(), augment::AugmentOptions(),
                                           "augment option", name, value);
      },
      py::arg("name"), py::arg("value"),
      "Raises InvalidArgumentError unless `value` (the text set_option takes) is one the row "
      "`name` of recipe_fields() parses and its bound holds (the rules between fields are "
      "validate()'s).");
  m.def(
      "validate_reader_options",
      [](const loader::ReaderOptions& options) {
        if (Status s = loader::validate(options); !s.ok()) throw_status(s);
      },
      py::arg("options"),
      "Raises InvalidArgumentError naming the first reader option out of its bound or rule.");
}

}  // namespace

void register_spec(py::module_& m) {
  bind_enums(m);
  bind_reader(m);
  bind_source(m);
  bind_sampler(m);
  bind_pipeline_spec(m);
  m.attr("MAX_BATCH_SIZE") = loader::kMaxBatchSize;
  m.attr("MAX_WORLD_SIZE") = loader::kMaxWorldSize;
  m.attr("MAX_PREFETCH") = client::kMaxPrefetch;
  m.attr("MAX_IGNORE_TAGS") = loader::kMaxIgnoreTags;
  m.attr("MAX_SOURCES") = loader::kMaxSources;
  m.attr("MAX_AREA") = loader::kMaxArea;
  m.attr("MAX_WEIGHT") = loader::kMaxWeight;
  m.def("reader_defaults", &loader::reader_defaults, py::arg("profile"),
        "The reader options `profile`'s reference reads its data with (bc7: illegibility valid, no "
        "ignore tags).");
  m.attr("MAX_EPOCH_SIZE") = loader::kMaxEpochSize;
  m.attr("MAX_RESUME_STAGES") = loader::kMaxResumeStages;
  m.def("default_on_bad_sample", &loader::default_on_bad_sample, py::arg("mode"),
        "The policy used when none is named: FAIL in eval (no metric changes unless asked), SKIP "
        "in training.");
  m.def(
      "option_names", [] { return std::string(augment::option_names()); },
      "The augmentation options a Loader accepts as keywords, comma-separated.");
  bind_field_tables(m);
  bind_option_checks(m);
}

}  // namespace textfeed::python
