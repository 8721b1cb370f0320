"""The package's modules import one way: each imports only modules below it in LAYERS (lazy
imports inside functions included), so no two modules import each other."""
import ast
import os

import clsort

# Bottom first: the ctypes declarations, the key types, the shared argument checks, NumPy arrays
# in and out, the pyopencl calls, the NumPy calls and contexts, the package.
LAYERS = ["_lib", "_keytypes", "_args", "_hostarrays", "_opencl", "api", "__init__"]
PACKAGE = os.path.dirname(clsort.__file__)


def package_imports(module):
    """The package's modules that `module` imports anywhere in its file."""
    tree = ast.parse(open(os.path.join(PACKAGE, module + ".py")).read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found.update(a.name for a in node.names)
            elif node.level == 0 and (node.module or "").startswith("clsort."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names
                         if a.name.startswith("clsort."))
    return found


def test_every_module_has_a_layer():
    modules = {f[:-3] for f in os.listdir(PACKAGE) if f.endswith(".py")}
    assert modules == set(LAYERS)


def test_modules_import_downwards_only():
    for i, module in enumerate(LAYERS):
        upward = package_imports(module) - set(LAYERS[:i])
        assert not upward, "%s imports %s, which are not below it" % (module, sorted(upward))


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch):
    # A planted cycle (what _opencl.py and api.py once had) is found.
    (tmp_path / "_args.py").write_text("def f():\n    from .api import sort\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", str(tmp_path))
    assert "api" in package_imports("_args")
