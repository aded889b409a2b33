"""Errors of the CTV training runs, each with a stable code.

The code is what scripts and tests match on; the message names the file (and
line where it applies) and says what to do.
"""

from __future__ import annotations

from agrieval.scoring.runtime.coded_error import CodedError

CODES: dict[str, str] = {
    "splits_missing": "The split folder, the protocol folder or a fold manifest does not exist.",
    "manifest_invalid": "A fold manifest (CSV) has missing columns, empty cells, bad split values or duplicate ids.",
    "folds_json_invalid": "folds.json is missing, not JSON, or has no usable data root.",
    "image_missing": "An image listed in a manifest is not on disk under the data root.",
    "image_unreadable": "An image listed in a manifest cannot be decoded.",
    "unknown_arch": "The architecture is neither a registered key nor a timm model name.",
    "unknown_preset": "The preset name is not registered.",
    "weights_missing": "Pretrained weights were asked for but no local file was given or found.",
    "weights_invalid": "The weights file exists but timm cannot load it into the model.",
    "run_config_mismatch": "The run folder holds a run (or checkpoint) made with other settings.",
    "checkpoint_invalid": "The epoch checkpoint cannot be read.",
    "bad_option": "A command-line value is out of range or inconsistent with another.",
    "device_unavailable": "--device names a device that is not here (cuda without a GPU, cuda:N past the last one).",
    "stream_gap": "--seed-stream sweep: the previous fold's random-stream state (stream_after.pt) is missing.",
    "cache_invalid": "The --cache folder holds a cache that does not match the manifest.",
    "unsafe_path": "A manifest path would lead out of the data root (absolute, '..', a NUL, a drive prefix).",
    "collective_failed": "Under torchrun, a collective (barrier, gather, gradient all-reduce) timed out or a peer "
                         "rank died; the message names the rank and the step.",
    "run_missing": "`submit`: the run folder has no kept model (best.pt).",
    "images_missing": "`submit`: --images is not a folder, or holds no image files.",
    "ids_invalid": "`submit`: the id list has no id column, a duplicate id, a bad row; or two images share an id.",
    "classes_mismatch": "`submit`: a class of the run is not in the competition's vocabulary.",
    "submission_invalid": "`submit`: the grading reader rejected the file about to be written (a bug: report it).",
}


# Codes that say the command line is wrong (exit 2); the others reject an input (exit 1).
USAGE_CODES = frozenset({"bad_option", "device_unavailable", "splits_missing", "unknown_arch", "unknown_preset", "weights_missing",
                         "run_missing", "images_missing"})
# Codes of a host-side failure (exit 3): the inputs and the command line may be fine.
_HOST_CODES = frozenset({"collective_failed", "submission_invalid"})


class CTVError(CodedError):
    """A user-facing failure of a CTV run; ``code`` is one of ``CODES``; exit 2 for a usage code, 3 for a
    host-side one, else 1."""

    codes = CODES

    def __init__(self, code: str, message: str):
        super().__init__(code, message, 2 if code in USAGE_CODES else 3 if code in _HOST_CODES else 1)
