"""mmocr 1.x restated in plain Python (numpy, OpenCV, pyclipper, shapely: Debian's python3-*
packages), as the references that the benchmarks in bench/ time textfeed against. targets.py holds
the module losses' training targets of one image (bench/mmocr_targets.py); each module's docstring
says what it restates."""

from .targets import FAMILIES, mmocr_targets

__all__ = ["FAMILIES", "mmocr_targets"]
