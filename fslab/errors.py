"""Exceptions: every error fslab raises on purpose is a FslabError with a message a user can act on."""

from __future__ import annotations


class FslabError(Exception):
    """Base class of fslab's own errors. The app shows ``str(err)`` to the user as it is."""


class DataError(FslabError, ValueError):
    """The data cannot be used as given (empty file, unknown target, one class, ...)."""


class ParameterError(FslabError, ValueError):
    """A parameter is out of range or does not fit the data (k larger than the number of features, ...)."""


class TooLargeError(FslabError):
    """The request would enumerate or allocate more than the configured limit."""


class UnsupportedTargetError(FslabError, ValueError):
    """The measure does not support this kind of target (a binary-only measure on a multiclass target, ...)."""


class DaskMissingError(FslabError, ImportError):
    """Dask was asked for but is not installed."""


class ClusterError(FslabError, RuntimeError):
    """The cluster could not finish a computation (a worker kept dying, the scheduler is unreachable)."""
