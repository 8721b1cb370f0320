"""clsort_backend.py - a PEP 517 build backend for the clsort package with no build requirements.

pip builds a package in an isolated environment holding only the package's build requirements,
downloaded from the index; with setuptools as a requirement, `pip install ./python` failed on a
machine without network even where Debian's python3-setuptools was installed. So this backend
writes the wheel (a zip with a .dist-info) itself, from the [project] table of pyproject.toml.

The wheel carries libclsort: build_wheel runs the repository's own Makefile
(`make -C ROOT BUILD=<tmp> <tmp>/libclsort.so`, so the sources and the kernel embedding are
exactly those of `make`) and puts the shared library in clsort/lib/ with the shipped device
configs in clsort/share/clsort/devices/, where the library looks for them relative to its own
file (PREFIX/lib -> PREFIX/share/clsort/devices, host/planning/config.c). ROOT, the repository, is found
from this file: python/ inside a checkout (pip >= 21.3 builds in place), the csrc/ copy that an
sdist of this backend carries, or CLSORT_SOURCE_DIR. CLSORT_BUILD_LIBRARY=0 builds a pure-Python
wheel that loads an installed libclsort instead (for distributions that package the library).
It also builds an sdist (with csrc/) and an editable wheel (a .pth file; the library then comes
from the checkout's build/ or CLSORT_LIBRARY).
"""
import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sysconfig
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE = "clsort"
# What the library's build needs from the repository (copied into an sdist as csrc/).
SOURCE_PARTS = ["Makefile", "include", "host", "kernels", "mk", "configs"]
DEPS_HINT = ("it needs make, a C compiler, the OpenCL headers and ICD loader and inih "
             "(Debian: `make deps`, or apt-get install build-essential opencl-headers "
             "ocl-icd-opencl-dev libinih-dev)")


def _is_root(path):
    return all(os.path.exists(os.path.join(path, p))
               for p in ("Makefile", "include/clsort.h", "host", "kernels", "mk/embed.c"))


def _source_root():
    """The directory with the library's sources, or a RuntimeError saying where we looked."""
    env = os.environ.get("CLSORT_SOURCE_DIR")
    if env:
        if _is_root(env):
            return os.path.abspath(env)
        raise RuntimeError("clsort: CLSORT_SOURCE_DIR=%s is not a clsort source tree (it needs "
                           "Makefile, include/clsort.h, host/, kernels/ and mk/embed.c)" % env)
    tried = []
    for cand in (os.path.dirname(HERE), os.path.join(HERE, "csrc")):
        if _is_root(cand):
            return cand
        tried.append(cand)
    raise RuntimeError(
        "clsort: cannot find the library's sources to build libclsort (looked in %s). This "
        "backend builds from python/ inside a clsort checkout or from an sdist that carries "
        "csrc/; a pip older than 21.3 copies python/ alone to a temporary directory: upgrade pip, "
        "set CLSORT_SOURCE_DIR to the checkout, or set CLSORT_BUILD_LIBRARY=0 for a wheel "
        "without the library (it then loads an installed one)" % " and ".join(tried))


def _library_version(root):
    """MAJOR.MINOR.PATCH from include/clsort.h, the only place the version is written."""
    with open(os.path.join(root, "include", "clsort.h"), encoding="utf-8") as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define CLSORT_VERSION_%s\s+(\d+)" % part, text, re.M)
        if not m:
            raise RuntimeError("clsort: no CLSORT_VERSION_%s in %s/include/clsort.h" % (part, root))
        parts.append(m.group(1))
    return ".".join(parts)


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


def _version():
    """The package's version is the library's (pyproject.toml: dynamic = ["version"])."""
    p = _project()
    if "version" in p:
        return p["version"]
    try:
        return _library_version(_source_root())
    except RuntimeError:
        # An sdist's PKG-INFO holds the version it was made with.
        pkg_info = os.path.join(HERE, "PKG-INFO")
        if os.path.exists(pkg_info):
            with open(pkg_info, encoding="utf-8") as f:
                m = re.search(r"^Version: (\S+)", f.read(), re.M)
            if m:
                return m.group(1)
        raise


def _metadata():
    p = _project()
    version = _version()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + version,
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
    return p["name"], version, text


def _package_files():
    """The package's files: its modules, and a libclsort.so* that a packager put next to them."""
    out = []
    pkg = os.path.join(HERE, PACKAGE)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name.startswith("libclsort.so"):
            out.append(PACKAGE + "/" + name)
    return out


def _is_native(arc):
    return os.path.basename(arc).startswith("libclsort.so")


def _tag(files):
    # A bundled libclsort makes the wheel specific to this platform.
    if any(_is_native(f) for f in files):
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
            info.external_attr = (0o755 if _is_native(arc) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name


def _read(rel):
    with open(os.path.join(HERE, rel), "rb") as f:
        return f.read()


def _build_library():
    """Builds libclsort with the repository's Makefile in a temporary directory; returns the
    wheel entries: clsort/lib/libclsort.so.N (the soname the bindings load) and the configs."""
    root = _source_root()
    make = os.environ.get("MAKE") or shutil.which("make") or shutil.which("gmake")
    if not make:
        raise RuntimeError("clsort: building libclsort needs make, which is not on PATH; "
                           + DEPS_HINT)
    major = _library_version(root).split(".")[0]
    jobs = str(max(1, min(os.cpu_count() or 1, 8)))
    with tempfile.TemporaryDirectory(prefix="clsort-build-") as tmp:
        build = os.path.join(tmp, "build")
        # Only the shared library (position-independent objects); the target path must be
        # spelled as the Makefile's $(BUILD)/libclsort.so.
        cmd = [make, "-C", root, "-j" + jobs, "BUILD=" + build, build + "/libclsort.so"]
        # A make that runs pip (make test) passes its command-line variables and jobserver down
        # through MAKEFLAGS: SAN= or BUILD= from there must not reach this build.
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        if proc.returncode != 0:
            out = proc.stdout.decode(errors="replace")
            raise RuntimeError("clsort: building libclsort failed (%s, exit status %d); %s. "
                               "Its output ends:\n%s"
                               % (" ".join(cmd), proc.returncode, DEPS_HINT, out[-6000:]))
        lib_file = os.path.realpath(os.path.join(build, "libclsort.so"))
        with open(lib_file, "rb") as f:
            entries = [(PACKAGE + "/lib/libclsort.so." + major, f.read())]
    configs = os.path.join(root, "configs")
    if os.path.isdir(configs):
        for name in sorted(os.listdir(configs)):
            if name.endswith(".ini"):
                with open(os.path.join(configs, name), "rb") as f:
                    entries.append((PACKAGE + "/share/clsort/devices/" + name, f.read()))
    return entries


def _want_library(config_settings):
    value = (config_settings or {}).get("build-library", os.environ.get("CLSORT_BUILD_LIBRARY", "1"))
    return str(value).strip().lower() not in ("0", "no", "false", "off")


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The wheel's METADATA before the wheel: pip resolves the dependencies (NumPy) from it before
    the library is compiled, so an install that cannot have them fails at once."""
    name, version, metadata = _metadata()
    dist_info = "%s-%s.dist-info" % (name, version)
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w",
              encoding="utf-8") as f:
        f.write(metadata)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    entries = [(f, _read(f)) for f in _package_files()]
    if _want_library(config_settings):
        entries += _build_library()
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # The source directory goes on sys.path, so edits take effect without reinstalling.
    return _write_wheel(wheel_directory, [(PACKAGE + "_editable.pth", (HERE + "\n").encode())])


def _source_files(root):
    """(path, archive path under csrc/) for every file of SOURCE_PARTS."""
    out = []
    for part in SOURCE_PARTS:
        path = os.path.join(root, part)
        if os.path.isfile(path):
            out.append((path, "csrc/" + part))
            continue
        for d, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(d, name)
                out.append((full, "csrc/" + os.path.relpath(full, root).replace(os.sep, "/")))
    return out


def build_sdist(sdist_directory, config_settings=None):
    name, version, metadata = _metadata()
    base = "%s-%s" % (name, version)
    files = [(os.path.join(HERE, rel), rel) for rel in
             ["pyproject.toml", "README.md", "backend/clsort_backend.py"] + _package_files()]
    tests = os.path.join(HERE, "tests")
    if os.path.isdir(tests):
        files += [(os.path.join(tests, t), "tests/" + t) for t in sorted(os.listdir(tests))
                  if t.endswith(".py")]
    # The library's sources, so that a wheel built from the sdist carries libclsort too.
    files += _source_files(_source_root())
    sdist_name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, sdist_name), "w:gz",
                      format=tarfile.PAX_FORMAT) as t:
        for path, rel in files:
            t.add(path, arcname=base + "/" + rel)
        data = metadata.encode("utf-8")
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return sdist_name
