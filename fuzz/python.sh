# Sourced by fuzz/run_readers.sh and fuzz/run_surface.sh (with $here and $repo set): sets $python
# to $FUZZ_PYTHON, else to the venv in fuzz/.venv, made on first use with atheris and this project.
python="${FUZZ_PYTHON:-$here/.venv/bin/python}"
if ! "$python" -c "import atheris, pytest_handoff" 2>/dev/null; then
    python3 -m venv "$here/.venv"
    "$here/.venv/bin/python" -m pip install --quiet --upgrade pip
    "$here/.venv/bin/python" -m pip install --quiet atheris google-re2 -e "$repo"
    python="$here/.venv/bin/python"
fi
