"""Where the organisers' PlantCLEF 2024 model comes from, and the inputs of ``predict`` checked before torch loads.

The pretrained models are one public Zenodo record (PlantNet, "PlantCLEF 2024 pretrained models on the flora of
south-western Europe"): a tar archive holding, under ``pretrained_models/``, one folder per variant
(``vit_base_patch14_reg4_dinov2_lvd142m_pc24_onlyclassifier_then_all``, the fine-tuned backbone the 2024 and
2025 entries use, and ``..._onlyclassifier``, the frozen one), each with its ``model_best.pth.tar``, and the
``class_mapping.txt`` the variants share (line index = output index). No checksum of the archive is published
in a place this kit can cite, so none is checked; the checkpoint is read with ``weights_only`` whatever it is.

``check_inputs`` costs a few ``stat`` calls: a missing file or folder is said in well under a second, before
the 10-20 s that importing torch and timm takes on a small machine.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ZENODO_RECORD", "ARCHIVE", "VARIANT", "DOWNLOAD_HINT", "check_inputs"]

ZENODO_RECORD = "https://zenodo.org/records/10848263"
ARCHIVE = "PlantNet_PlantCLEF2024_pretrained_models_on_the_flora_of_south-western_europe.tar"
VARIANT = "vit_base_patch14_reg4_dinov2_lvd142m_pc24_onlyclassifier_then_all"
DOWNLOAD_HINT = (f"download {ARCHIVE} from the Zenodo record {ZENODO_RECORD} (PlantCLEF 2024 pretrained models), "
                 f"unpack it (tar -xf), and pass --checkpoint pretrained_models/{VARIANT}/model_best.pth.tar "
                 "--class-mapping pretrained_models/class_mapping.txt")


class MissingInput(ValueError):
    """A file or folder ``predict`` needs is not there; ``code`` is the error line's."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def check_inputs(images: Path | None, checkpoint: Path | None, class_mapping: Path | None, *,
                 random_init: bool = False) -> None:
    """Refuse a missing checkpoint, class mapping or images folder, naming the download for the first two."""
    if images is not None and not Path(images).is_dir():
        raise MissingInput("images_invalid", f"image folder {images} not found (a folder of quadrat images)")
    if not random_init:
        if checkpoint is None:
            raise MissingInput("checkpoint_missing", f"--checkpoint is required: {DOWNLOAD_HINT}")
        if not Path(checkpoint).is_file():
            raise MissingInput("checkpoint_missing", f"checkpoint {checkpoint} not found: {DOWNLOAD_HINT}")
    if class_mapping is None:
        raise MissingInput("class_mapping_missing", f"--class-mapping is required: {DOWNLOAD_HINT}")
    if not Path(class_mapping).is_file():
        raise MissingInput("class_mapping_missing", f"class mapping {class_mapping} not found: {DOWNLOAD_HINT}")
