"""Where the Python tests find things: the repository, its sample dataset and the `textfeed`
command (TEXTFEED_BIN, as `make test` sets it, or the default build folder's)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "icdar15-sample"
TEXTFEED = os.path.abspath(os.environ.get("TEXTFEED_BIN", str(ROOT / "build" / "tools" / "textfeed")))
