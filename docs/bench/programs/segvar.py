# segvar.py MAIN_SEGMENTED_CL OLD_SEGMENTED_CL OUTDIR: the variants of kernels/segmented.cl that
# call 6 of session 2026-11-28 (seventh) compiled for their registers (run-w6.sh): v0 main
# (73f761e), v1 the old file (ccd2d18), v2 no equal-length span in tiles, v3 v2 without the span
# branches at the load and store, v4 no equal-length test, v5 no store-side span branch.
import os, sys
src, old, out = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
os.makedirs(out, exist_ok=True)
def rep(s, a, b):
    assert a in s, a[:60]
    return s.replace(a, b)
v2 = rep(src, 'lspan_used = lequal ? nt << plog : 0u;', 'lspan_used = 0u;')
v2 = rep(v2, 'for (uint j = lequal ? nt : t; j < nt; j += WG_SIZE)', 'for (uint j = t; j < nt; j += WG_SIZE)')
v3 = v2.replace('        if (lspan_used) {\n            const ulong base = lspan_base;',
                '        if (0) {\n            const ulong base = lspan_base;')
v4 = rep(src, '        lequal = lone < SEG_BINS && hi > lo && hi - lo == (ulong)nseg << (lone + 1);',
         '        lequal = 0; (void)hi;')
i = src.index('        if (lspan_used) {\n            const ulong base = lspan_base;\n            const uint used = lspan_used;\n            for (uint s = t; s < used; s += WG_SIZE) {')
v5 = src[:i] + src[i:].replace('        if (lspan_used) {', '        if (0) {', 1)
for name, text in (('v0', src), ('v1', old), ('v2', v2), ('v3', v3), ('v4', v4), ('v5', v5)):
    open(os.path.join(out, name + '.cl'), 'w').write(text)
