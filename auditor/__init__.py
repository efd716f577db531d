"""containment-auditor: which documents of a corpus are wholly contained in another, and where."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("containment-auditor")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"
