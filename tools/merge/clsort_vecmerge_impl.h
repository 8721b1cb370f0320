/* clsort_vecmerge_impl.h - the vector merge's loops for one key width, included by
 * clsort_vecmerge.c once per width (the stb way of writing a loop once for several types).
 *
 * The includer defines:
 *   VM_T        the key's unsigned type (uint32_t or uint64_t)
 *   VM_TARGET   the function attribute that enables the instructions used
 *   VM_NAME(x)  x with the width's suffix
 *   VM_VEC      the vector type, 8 keys wide
 *   VM_LOAD(p), VM_STORE(p, v), VM_LOADU(p), VM_STOREU(p, v)   aligned and unaligned
 *   VM_MIN(a, b), VM_MAX(a, b)   unsigned, lane by lane
 *   VM_REV(v)   the 8 keys in reverse order
 *   VM_CLEAN(v) a bitonic vector of 8 keys sorted (half-cleaners at distances 4, 2, 1)
 *   VM_ZERO(), VM_OR(a, b), VM_XOR(a, b), VM_NONZERO(v)   for the order check
 * Keys are ordinals: VM_NAME(to_ord) and VM_NAME(from_ord) are the includer's too. */

/* Maps n keys in place: raw keys to ordinals (a leaf's), or back (`back`: the root's). One loop
 * per kind, so that the kind is a constant the compiler vectorises with. */
VM_TARGET static void VM_NAME(map_keys)(const vm_tree *t, VM_T *b, size_t n, int back)
{
    const VM_T flip = (VM_T)t->flip;
    if (t->kind == VM_SIGNED)
        for (size_t i = 0; i < n; ++i)
            b[i] = back ? VM_NAME(from_ord)(VM_SIGNED, flip, b[i])
                        : VM_NAME(to_ord)(VM_SIGNED, flip, b[i]);
    else if (t->kind == VM_FLOAT)
        for (size_t i = 0; i < n; ++i)
            b[i] = back ? VM_NAME(from_ord)(VM_FLOAT, flip, b[i])
                        : VM_NAME(to_ord)(VM_FLOAT, flip, b[i]);
    else if (flip)
        for (size_t i = 0; i < n; ++i)
            b[i] ^= flip;
}

/* A leaf's next keys, mapped to ordinals, checked to be in order when asked, and padded to whole
 * steps of 16 keys at the end. */
VM_TARGET static void VM_NAME(refill_leaf)(vm_tree *t, vm_stream *s)
{
    const size_t n = s->left < VM_BUF ? s->left : VM_BUF;
    VM_T *const b = (VM_T *)s->buf;
    memcpy(b, s->src, n * sizeof(VM_T));
    VM_NAME(map_keys)(t, b, n, 0);
    if (t->check && n > 0) {
        int bad = s->started && (VM_T)s->last > b[0];
        size_t i = 0;
        VM_VEC acc = VM_ZERO(); /* non-zero where a key is above the next */
        for (; i + 9 <= n; i += 8) {
            const VM_VEC x = VM_LOAD(b + i), y = VM_LOADU(b + i + 1);
            acc = VM_OR(acc, VM_XOR(VM_MAX(x, y), y));
        }
        bad |= VM_NONZERO(acc);
        for (; i + 1 < n; ++i)
            bad |= b[i] > b[i + 1];
        s->last = b[n - 1];
        s->started = 1;
        if (bad)
            t->disorder = 1;
    }
    s->src += n * sizeof(VM_T);
    s->left -= n;
    size_t m = n;
    if (s->left == 0) {
        while (m % 16)
            b[m++] = (VM_T)-1;
        s->done = 1;
    }
    s->head = 0;
    s->tail = (uint32_t)m;
}

/* Fills s's buffer, which its parent has emptied. A step takes 16 keys, two vectors, from a
 * child: the chain from one step's `hi` to the next (a min or max and the cleaners, about 14
 * cycles) then serves 16 outputs instead of 8. The children's read positions stay in registers,
 * so that the pick of the next child is a compare and two adds rather than loads of what the
 * previous step stored. */
VM_TARGET static void VM_NAME(produce)(vm_tree *t, vm_stream *s)
{
    if (!s->child[0]) {
        VM_NAME(refill_leaf)(t, s);
        return;
    }
    vm_stream *const a = s->child[0], *const b = s->child[1];
    uint32_t ia = a->head, ta = a->tail, ib = b->head, tb = b->tail;
    const VM_T *const pa = (const VM_T *)a->buf, *const pb = (const VM_T *)b->buf;
    VM_T *const out = (VM_T *)s->buf;
    uint32_t n = 0;
    VM_VEC h0 = VM_LOADU((const VM_T *)s->hi), h1 = VM_LOADU((const VM_T *)s->hi + 8);
    int has_hi = s->has_hi;
    while (n < VM_BUF) {
        if (ia == ta && !a->done) {
            a->head = ia;
            VM_NAME(produce)(t, a);
            ia = a->head;
            ta = a->tail;
        }
        if (ib == tb && !b->done) {
            b->head = ib;
            VM_NAME(produce)(t, b);
            ib = b->head;
            tb = b->tail;
        }
        const VM_T *p;
        if (__builtin_expect(ia != ta && ib != tb, 1)) {
            /* Arithmetic rather than a branch: the pick is a coin toss on random keys. */
            const uint32_t from_b = pb[ib] < pa[ia];
            p = from_b ? pb + ib : pa + ia;
            ia += 16u - 16u * from_b;
            ib += 16u * from_b;
        } else if (ia == ta && ib == tb) {
            if (has_hi) {
                VM_STORE(out + n, h0);
                VM_STORE(out + n + 8, h1);
                n += 16;
                has_hi = 0;
            }
            s->done = 1;
            break;
        } else if (ia == ta) {
            p = pb + ib;
            ib += 16;
        } else {
            p = pa + ia;
            ia += 16;
        }
        const VM_VEC v0 = VM_LOAD(p), v1 = VM_LOAD(p + 8);
        if (!has_hi) {
            h0 = v0;
            h1 = v1;
            has_hi = 1;
            continue;
        }
        /* The 16 loaded keys reversed against the 16 of hi: the lower halves of the compares
         * are the 16 smallest, the upper the 16 largest, each a bitonic sequence; the
         * half-cleaner at distance 8 is a min and a max of its two vectors. */
        const VM_VEC r0 = VM_REV(v1), r1 = VM_REV(v0);
        const VM_VEC l0 = VM_MIN(h0, r0), l1 = VM_MIN(h1, r1);
        const VM_VEC u0 = VM_MAX(h0, r0), u1 = VM_MAX(h1, r1);
        h0 = VM_CLEAN(VM_MIN(u0, u1));
        h1 = VM_CLEAN(VM_MAX(u0, u1));
        VM_STORE(out + n, VM_CLEAN(VM_MIN(l0, l1)));
        VM_STORE(out + n + 8, VM_CLEAN(VM_MAX(l0, l1)));
        n += 16;
    }
    a->head = ia;
    b->head = ib;
    VM_STOREU((VM_T *)s->hi, h0);
    VM_STOREU((VM_T *)s->hi + 8, h1);
    s->has_hi = has_hi;
    s->head = 0;
    s->tail = n;
}

/* The root's keys, mapped back, into w's buffer. */
VM_TARGET static int VM_NAME(drain)(vm_tree *t, vm_stream *root, uint64_t records, cli_writer *w)
{
    const size_t W = sizeof(VM_T);
    while (records > 0) {
        if (root->head == root->tail) {
            if (root->done)
                break; /* cannot happen: the leaves hold `records` keys */
            VM_NAME(produce)(t, root);
            if (t->disorder)
                return CLI_VECMERGE_DISORDER;
            continue;
        }
        if (w->cap - w->len < W) {
            const int rc = cli_writer_flush(w);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
        uint64_t n = root->tail - root->head;
        if (n > records)
            n = records;
        if (n > (w->cap - w->len) / W)
            n = (w->cap - w->len) / W;
        VM_T *const p = (VM_T *)root->buf + root->head; /* taken now: mapped back in place */
        VM_NAME(map_keys)(t, p, (size_t)n, 1);
        memcpy(w->buf + w->len, p, (size_t)n * W);
        w->len += (size_t)n * W;
        root->head += (uint32_t)n;
        records -= n;
    }
    return CLI_EXIT_OK;
}
