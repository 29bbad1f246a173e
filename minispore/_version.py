"""The package version (one place: the package and run_check read it)."""

__version__ = "0.1.0"
