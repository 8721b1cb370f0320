"""clsort_backend.py - a PEP 517 build backend for the clsort package with no build requirements.

pip builds a package in an isolated environment holding only the package's build requirements,
downloaded from the index; with setuptools as a requirement, `pip install ./python` failed on a
machine without network even where Debian's python3-setuptools was installed. The package is a few
pure-Python modules, so this backend writes the wheel (a zip with a .dist-info) itself, from the
[project] table of pyproject.toml. It also builds an sdist and an editable wheel (a .pth file).
"""
import base64
import hashlib
import io
import json
import os
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE = "clsort"


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        tomllib = None
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    # Older Pythons have no TOML parser in an isolated build. Our pyproject.toml keeps to one
    # line per key with JSON-compatible values (strings, arrays of strings), which this reads.
    tables, table = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                table = tables.setdefault(line.strip("[]"), {})
            elif table is not None and "=" in line:
                key, value = line.split("=", 1)
                table[key.strip().strip('"')] = json.loads(value)
    project = tables.get("project", {})
    project["optional-dependencies"] = tables.get("project.optional-dependencies", {})
    return project


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"],
             "Summary: " + p.get("description", "")]
    if "requires-python" in p:
        lines.append("Requires-Python: " + p["requires-python"])
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: " + dep)
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        for dep in deps:
            lines.append('Requires-Dist: %s; extra == "%s"' % (dep, extra))
    text = "\n".join(lines) + "\n"
    readme = p.get("readme")
    if readme:
        with open(os.path.join(HERE, readme), encoding="utf-8") as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return p["name"], p["version"], text


def _package_files():
    """The package's files: its modules, and a libclsort.so* that a packager put next to them."""
    out = []
    pkg = os.path.join(HERE, PACKAGE)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name.startswith("libclsort.so"):
            out.append(PACKAGE + "/" + name)
    return out


def _tag(files):
    # A bundled libclsort makes the wheel specific to this platform.
    if any("/libclsort.so" in f for f in files):
        return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-any"


def _write_wheel(wheel_directory, contents):
    """contents: (archive name, bytes) pairs, without the .dist-info; returns the wheel's name."""
    name, version, metadata = _metadata()
    tag = _tag([n for n, _ in contents])
    dist_info = "%s-%s.dist-info" % (name, version)
    wheel_text = ("Wheel-Version: 1.0\nGenerator: clsort_backend\nRoot-Is-Purelib: %s\nTag: %s\n"
                  % ("true" if tag.endswith("any") else "false", tag))
    contents = list(contents) + [(dist_info + "/METADATA", metadata.encode("utf-8")),
                                 (dist_info + "/WHEEL", wheel_text.encode()),
                                 (dist_info + "/top_level.txt", (PACKAGE + "\n").encode())]
    record = []
    for arc, data in contents:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
    record.append(dist_info + "/RECORD,,")
    contents.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    wheel_name = "%s-%s-%s.whl" % (name, version, tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for arc, data in contents:
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if "/libclsort.so" in arc else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name


def _read(rel):
    with open(os.path.join(HERE, rel), "rb") as f:
        return f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(f, _read(f)) for f in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # The source directory goes on sys.path, so edits take effect without reinstalling.
    return _write_wheel(wheel_directory, [(PACKAGE + "_editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    name, version, metadata = _metadata()
    base = "%s-%s" % (name, version)
    files = ["pyproject.toml", "README.md", "backend/clsort_backend.py"] + _package_files()
    tests = os.path.join(HERE, "tests")
    if os.path.isdir(tests):
        files += ["tests/" + t for t in sorted(os.listdir(tests)) if t.endswith(".py")]
    sdist_name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, sdist_name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in files:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        data = metadata.encode("utf-8")
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return sdist_name
