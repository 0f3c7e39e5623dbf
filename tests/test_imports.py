"""Importing fastfair stays cheap: no scipy, pandas, pyarrow or matplotlib until used."""

import subprocess
import sys

HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "dask")


def loaded_after(statement: str) -> list[str]:
    code = f"{statement}\nimport sys\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_fastfair_loads_no_heavy_dependency():
    mods = loaded_after("import fastfair, fastfair.cli")
    heavy = sorted({m.split(".")[0] for m in mods} & set(HEAVY))
    assert heavy == [], f"`import fastfair` loaded {heavy}"


def test_lazy_scipy_resolves_on_first_use():
    mods = loaded_after(
        "import fastfair\nfrom fastfair._scipy import special\nassert special.ndtr(0.0) == 0.5"
    )
    assert "scipy.special" in mods


def test_package_ships_type_information():
    import pathlib

    import fastfair

    assert (pathlib.Path(fastfair.__file__).parent / "py.typed").is_file()
