"""MindSpore's logger (`from mindspore import log as logger`), configured as MindSpore's is by
environment variables read when it is first used (docs/runtime.md):

- `GLOG_v`: the level, 0 DEBUG, 1 INFO, 2 WARNING (default), 3 ERROR, 4 CRITICAL;
- `GLOG_logtostderr`: 1 (default) logs to stderr; 0 logs to rotating files under
  `GLOG_log_dir/rank_<id>/logs/` (the rank from RANK_ID, OMPI_COMM_WORLD_RANK or MS_NODE_ID),
  and only records from `GLOG_stderrthreshold` (default 2) up to stderr as well;
- `logger_maxBytes` (default 52428800) and `logger_backupCount` (default 30): the rotation.
"""
import logging
import os
import sys
import threading
from logging.handlers import RotatingFileHandler

__all__ = ["get_level", "get_log_config"]

_LEVEL_OF_GLOG = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING,
                  "3": logging.ERROR, "4": logging.CRITICAL}
_GLOG_OF_LEVEL = {v: k for k, v in _LEVEL_OF_GLOG.items()}
_ENV = {"level": "GLOG_v", "console": "GLOG_logtostderr", "filepath": "GLOG_log_dir",
        "maxBytes": "logger_maxBytes", "backupCount": "logger_backupCount",
        "stderr_level": "GLOG_stderrthreshold"}
_FORMAT = ("[%(levelname)s] ME(%(process)d:%(thread)d,%(processName)s):%(asctime)s "
           "[%(pathname)s:%(lineno)d] %(message)s")
_lock = threading.Lock()
_logger = []  # the configured logger, once made


def _env_config():
    return {key: os.environ[var].strip() for key, var in _ENV.items()
            if os.environ.get(var, "").strip()}


def _glog_level(value):
    if value not in _LEVEL_OF_GLOG:
        raise ValueError("Incorrect log level, please check the configuration of GLOG_v or "
                         "GLOG_stderrthreshold, desired log level: 4-CRITICAL, 3-ERROR, "
                         f"2-WARNING, 1-INFO, 0-DEBUG. But got {value}.")
    return _LEVEL_OF_GLOG[value]


def _count(cfg, key, default):
    value = cfg.get(key, default)
    if not value.isdigit():
        raise ValueError(f"Incorrect value, the value of {_ENV[key]} must be a positive "
                         f"integer, but got {value}.")
    return int(value)


def _rank():
    for var in ("RANK_ID", "OMPI_COMM_WORLD_RANK", "MS_NODE_ID"):
        if os.environ.get(var):
            return os.environ[var]
    return "0"


def _make_logger():
    cfg = _env_config()
    level = _glog_level(cfg.get("level", "2"))
    stderr_level = _glog_level(cfg.get("stderr_level", "2"))
    console = cfg.get("console", "1")
    if console not in ("0", "1"):
        raise ValueError(f"Incorrect value, the value of GLOG_logtostderr must be 0 or 1, but "
                         f"got {console}.")
    logger = logging.getLogger(f"minispore.log.{os.getpid()}")
    logger.setLevel(level)
    logger.propagate = False
    for h in list(logger.handlers):
        logger.removeHandler(h)
    formatter = logging.Formatter(_FORMAT)
    if console == "1":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(formatter)
        logger.addHandler(handler)
        return logger
    if "filepath" not in cfg:
        raise ValueError("When GLOG_logtostderr is set to 0, the directory of saving log "
                         "GLOG_log_dir must be set, but got it empty.")
    max_bytes = _count(cfg, "maxBytes", "52428800")
    backups = _count(cfg, "backupCount", "30")
    log_dir = os.path.join(os.path.realpath(cfg["filepath"]), f"rank_{_rank()}", "logs")
    os.makedirs(log_dir, mode=0o700, exist_ok=True)
    file_handler = RotatingFileHandler(os.path.join(log_dir, f"minispore.log.{os.getpid()}"),
                                       maxBytes=max_bytes, backupCount=backups,
                                       encoding="utf-8")
    file_handler.setFormatter(formatter)
    logger.addHandler(file_handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(stderr_level)
    stderr.setFormatter(formatter)
    logger.addHandler(stderr)
    return logger


def _get_logger():
    if not _logger:
        with _lock:
            if not _logger:
                _logger.append(_make_logger())
    return _logger[0]


def debug(msg, *args, **kwargs):
    _get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _get_logger().warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    _get_logger().error(msg, *args, **kwargs)


def critical(msg, *args, **kwargs):
    _get_logger().critical(msg, *args, **kwargs)


def exception(msg, *args, **kwargs):
    _get_logger().exception(msg, *args, **kwargs)


def get_level():
    """The logger's level as MindSpore's GLOG digit: '0' DEBUG ... '4' CRITICAL."""
    return _GLOG_OF_LEVEL.get(_get_logger().getEffectiveLevel())


def get_log_config():
    """The logger's configuration, keyed by MindSpore's environment variables: 'GLOG_v' and
    'GLOG_logtostderr'; when logging to files also the directory, the rotation and the stderr
    threshold."""
    logger = _get_logger()
    config = {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
    first = logger.handlers[0]
    if isinstance(first, RotatingFileHandler):
        config["GLOG_logtostderr"] = "0"
        config["GLOG_log_dir"] = os.path.dirname(first.baseFilename)
        config["logger_maxBytes"] = first.maxBytes
        config["logger_backupCount"] = first.backupCount
        config["GLOG_stderrthreshold"] = _GLOG_OF_LEVEL.get(logger.handlers[1].level)
    return config
