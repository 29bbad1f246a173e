"""`minispore.train.metrics.occlusion_sensitivity`: see `minispore.nn.metrics.occlusion_sensitivity`."""
from ...nn.metrics.occlusion_sensitivity import OcclusionSensitivity  # noqa: F401

__all__ = ["OcclusionSensitivity"]
