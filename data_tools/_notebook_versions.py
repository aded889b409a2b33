"""The library versions the public AgrI notebooks ran with, and what a different one can change.

Read from the notebooks' saved outputs (Agri-Challenge/agri-challenge-scripts-2024): the first cell of
``1.dataset_stats.ipynb`` and of ``3.build_resized_dataset.ipynb`` is ``pip install`` whose output says
``Requirement already satisfied: pandas in /opt/conda/lib/python3.11/site-packages (2.2.0)``, ``Pillow
(11.3.0)``, ``pillow-heif (1.1.0)``, ``imagehash (4.3.2)`` and ``numpy<2,>=1.23.2 ... (1.26.3)``; the
notebooks' metadata says Python 3.11.7 (``language_info.version``). ``2.clean_duplicates.ipynb`` saved no
such output; it ran in the same environment (the same kernel, the same ``/opt/conda``).

``--preset official`` curation warns when the Pillow or pandas in use differ, and says what can change.
On a 130-file pool, Pillow 13.0 gave 4 of 128 images another pHash than 11.3, and so other duplicate groups
and output names, and resized nine 339x1000 images up to 9 grey levels apart. Under pandas 3 the notebook's
own keep rule keeps another file in 7 of 15 duplicate groups. The kit's dedup fixes pandas 2.2's tie order,
so its own result does not move with pandas.
"""

from __future__ import annotations

from agrieval.data_tools.versions import library_versions

NOTEBOOK_VERSIONS = {"python": "3.11.7", "Pillow": "11.3.0", "pandas": "2.2.0", "pillow-heif": "1.1.0",
                     "imagehash": "4.3.2", "numpy": "1.26.3"}
SOURCE = "the notebooks' saved pip output"

# stage -> {library: what a different version can change in that stage's output}
CONSEQUENCES = {
    "catalog": {"Pillow": "decoding, so some pHashes (other duplicate groups, other output names; Pillow 13.0 "
                          "against 11.3: 4 of 128 images)"},
    "dedup": {"pandas": "nothing in the kit's dedup (it fixes pandas 2.2's tie order); the notebook itself, "
                        "run under pandas 3, keeps another file in 7 of 15 duplicate groups"},
    "resize": {"Pillow": "the BICUBIC resize and the JPEG encoder, so the clean tree's pixels and bytes "
                         "(Pillow 13.0 against 11.3: nine 339x1000 images up to 9 grey levels apart)"},
}


def version_warnings(stage: str, versions: dict[str, str] | None = None, where: str = "here") -> list[str]:
    """One line per library of ``stage`` whose version differs from the notebooks' (``versions``: the
    environment's by default, or those an earlier output recorded, ``where`` saying which)."""
    here = versions if versions is not None else library_versions(tuple(CONSEQUENCES[stage]))
    lines = []
    for lib, what in CONSEQUENCES[stage].items():
        mine, theirs = here.get(lib), NOTEBOOK_VERSIONS[lib]
        if mine is not None and mine != theirs:
            lines.append(f"warning: version_differs: {lib} {mine} {where}, the notebooks ran {theirs} ({SOURCE}); "
                         f"what can change: {what}")
    return lines
