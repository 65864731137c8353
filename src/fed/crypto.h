#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Cryptography for secure aggregation                                      */
/* ------------------------------------------------------------------------ */

/* The primitives a secure-aggregation protocol (Bonawitz et al. 2017) is
 * built from, and what each one is for in fgl:
 *   fgl_os_entropy     the operating system's randomness: the only source of
 *                      secret keys, of the coins of Shamir sharing, and of
 *                      the seed of DP noise that nobody may predict (the
 *                      simulation's noise comes from the run seed, so that
 *                      runs replay)
 *   fgl_x25519         key agreement (X25519, RFC 7748): a pair of clients
 *                      derives a shared secret from one another's public
 *                      keys, which the server relays but cannot use
 *   fgl_kdf            keys for one purpose and round from a shared secret
 *                      (a PRF: ChaCha20 keyed by the secret over the nonce)
 *   fgl_chacha20_words mask expansion (ChaCha20, RFC 8439): a pairwise or
 *                      self-mask key becomes one 32-bit mask per value of
 *                      the model
 *   fgl_aead_seal/open share encryption (ChaCha20-Poly1305, RFC 8439): the
 *                      shares a client sends its peers through the server,
 *                      which can neither read nor alter them unnoticed
 *   fgl_shamir_*       t-of-n Shamir shares of each client's pairwise-key
 *                      secret and self-mask seed, so that the survivors can
 *                      remove a dropped client's masks (or a live client's
 *                      self-mask) and no fewer than t of them learn anything
 * They are written for fgl from the standards (no code is taken from
 * another library), in portable C99 without 128-bit integers, and are
 * constant-time where secrets are involved: X25519's Montgomery ladder
 * swaps by masks, never branches or indexes on a key bit; the tag
 * comparison looks at every byte; ChaCha20, Poly1305 and the field
 * arithmetic have no secret-dependent branches. tests/test_crypto.c checks
 * them against the RFCs' test vectors, and tests/test_crypto_sodium.sh
 * against libsodium on random inputs where it is installed. */

/* n bytes of the operating system's entropy into buf: on Linux getrandom(2)
 * where the C library declares it (the kernel's generator, waiting only
 * until it is seeded at boot); otherwise, and on a kernel without the call,
 * /dev/urandom, opened afresh each time and refused (fail closed) unless it
 * is a character device that gives not only zeros: a regular file bound
 * over it would hand out the same bytes from offset 0 on every call, i.e.
 * equal "secrets"; on Windows rand_s (the C runtime's interface to the
 * system generator). There is no weaker fallback: without a source this
 * fails with FGL_ERR_IO and says why. */
FGLDEF int fgl_os_entropy(void *buf, size_t n, fgl_error *err);

/* ChaCha20 (RFC 8439, section 2.4): out = in XOR the keystream of key and
 * nonce from block `counter` on (in NULL: out gets the keystream; out may
 * be in). The block counter is 32 bits: past 2^32 blocks (256 GiB) the
 * keystream would repeat, so no message may be that long. */
FGLDEF void fgl_chacha20_xor(unsigned char *out, const unsigned char *in, size_t n, const unsigned char key[32],
                             const unsigned char nonce[12], uint32_t counter);
/* The same keystream as n 32-bit words, word k being bytes 4k..4k+3 read
 * little-endian (on any host): the masks of secure aggregation, computed
 * sixteen blocks at a time straight into out. */
FGLDEF void fgl_chacha20_words(uint32_t *out, size_t n, const unsigned char key[32], const unsigned char nonce[12],
                               uint32_t counter);
/* A PRF (and so a KDF for a uniformly random key): the first 32 bytes of
 * ChaCha20's keystream under key with the nonce (label, a, b), each
 * little-endian, and counter 0. ChaCha20's block function is assumed to be a
 * PRF of its key over nonce and counter, so distinct (label, a, b) give
 * independent-looking keys: label names the purpose, a and b e.g. the round
 * and a peer. */
FGLDEF void fgl_kdf(unsigned char out[32], const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b);

/* Poly1305 (RFC 8439, section 2.5): the 16-byte tag of the n bytes at m
 * under a one-time key (never use a key twice). */
FGLDEF void fgl_poly1305(unsigned char tag[16], const unsigned char *m, size_t n, const unsigned char key[32]);
/* ChaCha20-Poly1305 (RFC 8439, section 2.8): encrypts the n bytes of pt into
 * ct (which may be pt) and authenticates them with the n_aad bytes of aad
 * (sent in the clear). A nonce must never be used twice with one key. */
FGLDEF void fgl_aead_seal(unsigned char *ct, unsigned char tag[16], const unsigned char *pt, size_t n,
                          const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                          const unsigned char nonce[12]);
/* The inverse: 0 and the plaintext in pt (which may be ct) when tag is
 * ct's and aad's, else -1 and pt zeroed (the tag is compared in constant
 * time, before anything is decrypted). */
FGLDEF int fgl_aead_open(unsigned char *pt, const unsigned char *ct, size_t n, const unsigned char tag[16],
                         const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                         const unsigned char nonce[12]);

/* X25519 (RFC 7748, section 5): the u-coordinate of scalar x u on
 * Curve25519 (the scalar clamped as the RFC says; u's top bit ignored). A
 * u of small order gives all zeros, which a protocol that needs both
 * parties' contribution checks for. */
FGLDEF void fgl_x25519(unsigned char out[32], const unsigned char scalar[32], const unsigned char u[32]);
/* The public key of the secret key sk (32 bytes of entropy): X25519 of sk
 * and the base point u = 9. */
FGLDEF void fgl_x25519_public(unsigned char pk[32], const unsigned char sk[32]);

/* Shamir t-of-n secret sharing of a 32-byte secret over GF(2^61 - 1). The
 * secret is cut into 5 chunks (bytes 0-6, 7-13, 14-20, 21-27, 28-31, each
 * read little-endian, so each is < 2^56 < p), and each chunk is the value at
 * 0 of its own random polynomial of degree t - 1. A share is the 5 values
 * at the holder's x (a nonzero uint32; fgl_shamir_split gives share i
 * x = i + 1), little-endian u64s: FGL_SHARE_BYTES bytes. Any t shares give
 * the secret; t - 1 reveal nothing of it. */
#define FGL_SHARE_BYTES 40
/* Writes n shares (share i at shares + i FGL_SHARE_BYTES, for x = i + 1).
 * The polynomials' coefficients are uniform in the field, drawn from
 * ChaCha20 keyed by coin_key, which must be fresh entropy (fgl_os_entropy)
 * for every split. FGL_ERR_ARG unless 1 <= t <= n. */
FGLDEF int fgl_shamir_split(unsigned char *shares, const unsigned char secret[32], int t, int n,
                            const unsigned char coin_key[32]);
/* The secret from t shares (t FGL_SHARE_BYTES bytes) held at xs[0..t-1]
 * (distinct, nonzero), by Lagrange interpolation at 0. FGL_ERR_ARG (and the
 * secret zeroed) for repeated or zero xs, a share value that is not a field
 * element, or a chunk that decodes past its width: shares that are not of
 * one split. This is a check, not authentication: a share of another split
 * or at another x passes it with probability about 2^-49, but a deliberate
 * change to a share can pass it (shares travel sealed by fgl_aead_seal). */
FGLDEF int fgl_shamir_combine(unsigned char secret[32], const unsigned char *shares, const uint32_t *xs, int t);

/* fgl:private */
#include "../alone.h"
#if !defined(_WIN32) && (defined(__unix__) || defined(__APPLE__))
#define FGL__ENTROPY_DEVICE 1
/* n bytes from the device at path (fgl_os_entropy's is /dev/urandom, fixed:
 * the path is a parameter for the tests only), with its checks. */
FGL__PRIVATE int fgl__entropy_device(const char *path, void *buf, size_t n, fgl_error *err);
#endif
FGL__PRIVATE uint64_t fgl__gf61_mul(uint64_t a, uint64_t b);
FGL__PRIVATE uint64_t fgl__gf61_inv(uint64_t a);
/* fgl:implementation */
#include "../alone.h"
/* --- operating-system entropy --------------------------------------------------- */

#ifdef _WIN32
#ifndef _CRT_RAND_S
/* <stdlib.h> declares rand_s only when _CRT_RAND_S is defined before it is
 * first included, which a header cannot count on; it is in every C runtime
 * since Windows XP (RtlGenRandom underneath) and needs no library of its own. */
int __cdecl rand_s(unsigned int *value);
#endif
#endif

/* Zeroes n bytes at p by memset called through a volatile pointer, which a
 * compiler cannot prove to be memset and so cannot drop as a dead store:
 * keys, keystreams and coins do not outlive their use on the stack. */
static void *(*const volatile fgl__crypto_memset)(void *, int, size_t) = memset;

static void fgl__crypto_wipe(void *p, size_t n) { fgl__crypto_memset(p, 0, n); }

#ifdef FGL__ENTROPY_DEVICE
FGL__PRIVATE int fgl__entropy_device(const char *path, void *buf, size_t n, fgl_error *err) {
    unsigned char *p = (unsigned char *)buf, any = 0;
    size_t want = n, k;
    struct stat st;
    int fd;
    if (n == 0) return FGL_OK;
#ifdef O_CLOEXEC
    do fd = open(path, O_RDONLY | O_CLOEXEC); /* no child process inherits it */
    while (fd < 0 && errno == EINTR);
#else
    do fd = open(path, O_RDONLY);
    while (fd < 0 && errno == EINTR);
#endif
    if (fd < 0)
        return fgl_error_set(err, FGL_ERR_IO, "no source of operating-system entropy: %s cannot be opened (%s)", path,
                             strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) { /* the opened file itself, not the name again */
        close(fd);
        return fgl_error_set(err, FGL_ERR_IO,
                             "%s is not a character device (a file in its place would give the same bytes on every "
                             "read, so equal secrets): refused as the source of operating-system entropy",
                             path);
    }
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            int e = got < 0 ? errno : 0;
            close(fd);
            fgl__crypto_wipe(buf, want - n);
            return fgl_error_set(err, FGL_ERR_IO, "%s: %s before the %lu bytes asked for were read", path,
                                 e ? strerror(e) : "end of file", (unsigned long)want);
        }
        p += got;
        n -= (size_t)got;
    }
    close(fd);
    for (k = 0; k < want; k++) any |= ((unsigned char *)buf)[k];
    if (want >= 16 && !any) /* 2^-128 by chance: /dev/zero or the like in its place */
        return fgl_error_set(err, FGL_ERR_IO, "%s gave %lu zero bytes: refused as the source of operating-system "
                             "entropy", path, (unsigned long)want);
    return FGL_OK;
}
#endif

FGLDEF int fgl_os_entropy(void *buf, size_t n, fgl_error *err) {
#ifdef _WIN32
    unsigned char *p = (unsigned char *)buf;
    unsigned int v = 0;
    while (n > 0) {
        size_t k = n < sizeof v ? n : sizeof v;
        if (rand_s(&v) != 0)
            return fgl_error_set(err, FGL_ERR_IO, "no operating-system entropy: rand_s failed");
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
    fgl__crypto_wipe(&v, sizeof v);
    return FGL_OK;
#elif defined(FGL__ENTROPY_DEVICE)
    unsigned char *p = (unsigned char *)buf;
#ifdef FGL__HAVE_GETRANDOM
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR) continue;
#ifdef ENOSYS
        if (got < 0 && errno == ENOSYS) break; /* a kernel before 3.17: the device */
#endif
        if (got <= 0)
            return fgl_error_set(err, FGL_ERR_IO, "no operating-system entropy: getrandom failed (%s)",
                                 got < 0 ? strerror(errno) : "no bytes");
        p += got;
        n -= (size_t)got;
    }
    if (n == 0) return FGL_OK;
#endif
    return fgl__entropy_device("/dev/urandom", p, n, err);
#else
    (void)buf;
    (void)n;
    return fgl_error_set(err, FGL_ERR_IO, "no source of operating-system entropy on this system");
#endif
}

/* --- ChaCha20 ----------------------------------------------------------------------- */

#define FGL__ROTL32(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* RFC 8439's quarter round on four words of a state. */
#define FGL__CHACHA_QR(a, b, c, d)          \
    do {                                    \
        a += b;                             \
        d = FGL__ROTL32(d ^ a, 16);         \
        c += d;                             \
        b = FGL__ROTL32(b ^ c, 12);         \
        a += b;                             \
        d = FGL__ROTL32(d ^ a, 8);          \
        c += d;                             \
        b = FGL__ROTL32(b ^ c, 7);          \
    } while (0)

/* The initial state (section 2.3): the constants "expand 32-byte k", the
 * key, the block counter and the nonce's three words. */
static void fgl__chacha20_state(uint32_t st[16], const unsigned char key[32], uint32_t counter, uint32_t n0,
                                uint32_t n1, uint32_t n2) {
    int i;
    st[0] = 0x61707865u;
    st[1] = 0x3320646eu;
    st[2] = 0x79622d32u;
    st[3] = 0x6b206574u;
    for (i = 0; i < 8; i++) st[4 + i] = (uint32_t)fgl__le_load(key + 4 * i, 4);
    st[12] = counter;
    st[13] = n0;
    st[14] = n1;
    st[15] = n2;
}

static void fgl__chacha20_state_nonce(uint32_t st[16], const unsigned char key[32], const unsigned char nonce[12],
                                      uint32_t counter) {
    fgl__chacha20_state(st, key, counter, (uint32_t)fgl__le_load(nonce, 4), (uint32_t)fgl__le_load(nonce + 4, 4),
                        (uint32_t)fgl__le_load(nonce + 8, 4));
}

/* One block: 20 rounds (10 column and 10 diagonal) of st, plus st. */
static void fgl__chacha20_block(uint32_t out[16], const uint32_t st[16]) {
    uint32_t x[16];
    int i;
    memcpy(x, st, sizeof x);
    for (i = 0; i < 10; i++) {
        FGL__CHACHA_QR(x[0], x[4], x[8], x[12]);
        FGL__CHACHA_QR(x[1], x[5], x[9], x[13]);
        FGL__CHACHA_QR(x[2], x[6], x[10], x[14]);
        FGL__CHACHA_QR(x[3], x[7], x[11], x[15]);
        FGL__CHACHA_QR(x[0], x[5], x[10], x[15]);
        FGL__CHACHA_QR(x[1], x[6], x[11], x[12]);
        FGL__CHACHA_QR(x[2], x[7], x[8], x[13]);
        FGL__CHACHA_QR(x[3], x[4], x[9], x[14]);
    }
    for (i = 0; i < 16; i++) out[i] = x[i] + st[i];
    fgl__crypto_wipe(x, sizeof x);
}

/* FGL__CHACHA_LANES blocks at once (counters st[12], st[12] + 1, ...), in
 * out block after block. Word w of every block sits in one row x[w]; each
 * double round is a loop over the blocks whose body holds one block's
 * words, which compilers turn into vector instructions, one lane a block:
 * two to four times the speed of one block at a time, in plain C. Sixteen
 * lanes fill AVX-512's registers and beat eight on narrower vectors too. */
#define FGL__CHACHA_LANES 16

static void fgl__chacha20_blocks(uint32_t *out, const uint32_t st[16]) {
    uint32_t x[16][FGL__CHACHA_LANES];
    int i, w, l;
    for (w = 0; w < 16; w++)
        for (l = 0; l < FGL__CHACHA_LANES; l++) x[w][l] = st[w] + (w == 12 ? (uint32_t)l : 0u);
    for (i = 0; i < 10; i++)
        for (l = 0; l < FGL__CHACHA_LANES; l++) {
            uint32_t a[16];
            for (w = 0; w < 16; w++) a[w] = x[w][l];
            FGL__CHACHA_QR(a[0], a[4], a[8], a[12]);
            FGL__CHACHA_QR(a[1], a[5], a[9], a[13]);
            FGL__CHACHA_QR(a[2], a[6], a[10], a[14]);
            FGL__CHACHA_QR(a[3], a[7], a[11], a[15]);
            FGL__CHACHA_QR(a[0], a[5], a[10], a[15]);
            FGL__CHACHA_QR(a[1], a[6], a[11], a[12]);
            FGL__CHACHA_QR(a[2], a[7], a[8], a[13]);
            FGL__CHACHA_QR(a[3], a[4], a[9], a[14]);
            for (w = 0; w < 16; w++) x[w][l] = a[w];
        }
    for (l = 0; l < FGL__CHACHA_LANES; l++)
        for (w = 0; w < 16; w++) out[16 * l + w] = x[w][l] + st[w] + (w == 12 ? (uint32_t)l : 0u);
    fgl__crypto_wipe(x, sizeof x);
}

FGLDEF void fgl_chacha20_words(uint32_t *out, size_t n, const unsigned char key[32], const unsigned char nonce[12],
                               uint32_t counter) {
    uint32_t st[16], ks[16];
    fgl__chacha20_state_nonce(st, key, nonce, counter);
    for (; n >= 16 * FGL__CHACHA_LANES; n -= 16 * FGL__CHACHA_LANES, out += 16 * FGL__CHACHA_LANES) {
        fgl__chacha20_blocks(out, st);
        st[12] += FGL__CHACHA_LANES;
    }
    for (; n > 0; st[12]++) { /* the last blocks, one at a time */
        size_t k = n < 16 ? n : 16;
        fgl__chacha20_block(ks, st);
        memcpy(out, ks, sizeof(uint32_t) * k);
        out += k;
        n -= k;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
}

/* out = in XOR the first n bytes of the keystream words ks (in NULL: the
 * bytes), through b, room for them. */
static void fgl__chacha20_xor_words(unsigned char *out, const unsigned char *in, const uint32_t *ks, size_t n,
                                    unsigned char *b) {
    size_t i;
    for (i = 0; i < (n + 3) / 4; i++) fgl__le_store(b + 4 * i, ks[i], 4);
    if (in)
        for (i = 0; i < n; i++) out[i] = (unsigned char)(in[i] ^ b[i]);
    else
        memcpy(out, b, n);
}

FGLDEF void fgl_chacha20_xor(unsigned char *out, const unsigned char *in, size_t n, const unsigned char key[32],
                             const unsigned char nonce[12], uint32_t counter) {
    uint32_t st[16], ks[16 * FGL__CHACHA_LANES];
    unsigned char b[64 * FGL__CHACHA_LANES];
    fgl__chacha20_state_nonce(st, key, nonce, counter);
    for (; n >= 64 * FGL__CHACHA_LANES; n -= 64 * FGL__CHACHA_LANES) {
        fgl__chacha20_blocks(ks, st);
        st[12] += FGL__CHACHA_LANES;
        fgl__chacha20_xor_words(out, in, ks, 64 * FGL__CHACHA_LANES, b);
        out += 64 * FGL__CHACHA_LANES;
        if (in) in += 64 * FGL__CHACHA_LANES;
    }
    for (; n > 0; st[12]++) {
        size_t k = n < 64 ? n : 64;
        fgl__chacha20_block(ks, st);
        fgl__chacha20_xor_words(out, in, ks, k, b);
        out += k;
        if (in) in += k;
        n -= k;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    fgl__crypto_wipe(b, sizeof b);
}

FGLDEF void fgl_kdf(unsigned char out[32], const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b) {
    uint32_t st[16], ks[16];
    int i;
    fgl__chacha20_state(st, key, 0, label, a, b);
    fgl__chacha20_block(ks, st);
    for (i = 0; i < 8; i++) fgl__le_store(out + 4 * i, ks[i], 4);
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
}

/* --- Poly1305 and ChaCha20-Poly1305 ------------------------------------------------- */

/* The accumulator h and the key's r are numbers below 2^130 held in five
 * 26-bit limbs, so that a product of two limbs (plus the sums of five of
 * them) fits in 64 bits; 2^130 = 5 (mod 2^130 - 5) folds what overflows
 * back into the low limbs. */
#define FGL__P1305_MASK 0x3ffffffu

typedef struct fgl__poly1305 {
    uint32_t r[5], h[5], s[4]; /* s: the key's second half, added at the end */
    unsigned char buf[16];     /* a block not yet complete */
    size_t used;
} fgl__poly1305;

static void fgl__poly1305_init(fgl__poly1305 *p, const unsigned char key[32]) {
    /* r's clamping (section 2.5): the top four bits of each 32-bit word and
     * the bottom two of the last three words cleared */
    uint32_t w0 = (uint32_t)fgl__le_load(key, 4) & 0x0fffffffu;
    uint32_t w1 = (uint32_t)fgl__le_load(key + 4, 4) & 0x0ffffffcu;
    uint32_t w2 = (uint32_t)fgl__le_load(key + 8, 4) & 0x0ffffffcu;
    uint32_t w3 = (uint32_t)fgl__le_load(key + 12, 4) & 0x0ffffffcu;
    int i;
    p->r[0] = w0 & FGL__P1305_MASK;
    p->r[1] = ((w0 >> 26) | (w1 << 6)) & FGL__P1305_MASK;
    p->r[2] = ((w1 >> 20) | (w2 << 12)) & FGL__P1305_MASK;
    p->r[3] = ((w2 >> 14) | (w3 << 18)) & FGL__P1305_MASK;
    p->r[4] = w3 >> 8;
    for (i = 0; i < 5; i++) p->h[i] = 0;
    for (i = 0; i < 4; i++) p->s[i] = (uint32_t)fgl__le_load(key + 16 + 4 * i, 4);
    p->used = 0;
}

/* h = (h + block) r mod 2^130 - 5 for each 16-byte block of m; hibit is
 * the block's 2^128 bit in limb 4 (1 << 24), 0 for the padded last block. */
static void fgl__poly1305_blocks(fgl__poly1305 *p, const unsigned char *m, size_t n_blocks, uint32_t hibit) {
    const uint32_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2], r3 = p->r[3], r4 = p->r[4];
    const uint32_t s1 = 5 * r1, s2 = 5 * r2, s3 = 5 * r3, s4 = 5 * r4; /* r_j 2^130 = 5 r_j */
    uint32_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], h3 = p->h[3], h4 = p->h[4];
    for (; n_blocks > 0; n_blocks--, m += 16) {
        uint32_t w0 = (uint32_t)fgl__le_load(m, 4), w1 = (uint32_t)fgl__le_load(m + 4, 4);
        uint32_t w2 = (uint32_t)fgl__le_load(m + 8, 4), w3 = (uint32_t)fgl__le_load(m + 12, 4);
        uint64_t d0, d1, d2, d3, d4;
        h0 += w0 & FGL__P1305_MASK;
        h1 += ((w0 >> 26) | (w1 << 6)) & FGL__P1305_MASK;
        h2 += ((w1 >> 20) | (w2 << 12)) & FGL__P1305_MASK;
        h3 += ((w2 >> 14) | (w3 << 18)) & FGL__P1305_MASK;
        h4 += (w3 >> 8) | hibit;
        /* limb k of h r collects h_i r_j for i + j = k, and 5 h_i r_j for
         * i + j = k + 5; each h_i < 2^27 and 5 r_j < 2^29: the sums < 2^59 */
        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 + (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 + (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 + (uint64_t)h3 * r1 + (uint64_t)h4 * r0;
        d1 += d0 >> 26;
        d2 += d1 >> 26;
        d3 += d2 >> 26;
        d4 += d3 >> 26;
        d0 = (d0 & FGL__P1305_MASK) + 5 * (d4 >> 26); /* the carry out of 2^130, folded */
        h0 = (uint32_t)(d0 & FGL__P1305_MASK);
        h1 = (uint32_t)((d1 & FGL__P1305_MASK) + (d0 >> 26));
        h2 = (uint32_t)(d2 & FGL__P1305_MASK);
        h3 = (uint32_t)(d3 & FGL__P1305_MASK);
        h4 = (uint32_t)(d4 & FGL__P1305_MASK);
    }
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
    p->h[3] = h3;
    p->h[4] = h4;
}

static void fgl__poly1305_update(fgl__poly1305 *p, const unsigned char *m, size_t n) {
    size_t full;
    if (n == 0) return;
    if (p->used) { /* complete the held block first */
        size_t k = 16 - p->used < n ? 16 - p->used : n;
        memcpy(p->buf + p->used, m, k);
        p->used += k;
        m += k;
        n -= k;
        if (p->used < 16) return;
        fgl__poly1305_blocks(p, p->buf, 1, 1u << 24);
        p->used = 0;
    }
    full = n / 16;
    fgl__poly1305_blocks(p, m, full, 1u << 24);
    m += 16 * full;
    n -= 16 * full;
    if (n) memcpy(p->buf, m, n);
    p->used = n;
}

/* Zero bytes up to the next multiple of 16 after n: the AEAD's padding. */
static void fgl__poly1305_pad16(fgl__poly1305 *p, size_t n) {
    static const unsigned char zeros[16] = {0};
    if (n % 16) fgl__poly1305_update(p, zeros, 16 - n % 16);
}

static void fgl__poly1305_finish(fgl__poly1305 *p, unsigned char tag[16]) {
    uint32_t h[5], g[5], c, mask, w[4];
    uint64_t f;
    int i, pass;
    if (p->used) { /* the last, short block: a 1 byte after it, then zeros (no 2^128 bit) */
        p->buf[p->used] = 1;
        memset(p->buf + p->used + 1, 0, 16 - p->used - 1);
        fgl__poly1305_blocks(p, p->buf, 1, 0);
    }
    memcpy(h, p->h, sizeof h);
    /* full carries: after the first pass only limb 0 can exceed 26 bits (by
     * the folded carry), after the second every limb is within its width */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < 4; i++) {
            h[i + 1] += h[i] >> 26;
            h[i] &= FGL__P1305_MASK;
        }
        c = h[4] >> 26;
        h[4] &= FGL__P1305_MASK;
        h[0] += 5 * c;
    }
    /* h mod p: g = h + 5 - 2^130 is h - p, taken when it is not negative */
    c = 5;
    for (i = 0; i < 4; i++) {
        g[i] = h[i] + c;
        c = g[i] >> 26;
        g[i] &= FGL__P1305_MASK;
    }
    g[4] = h[4] + c - (1u << 26);
    mask = (g[4] >> 31) - 1; /* all ones when h >= p */
    for (i = 0; i < 5; i++) h[i] = (h[i] & ~mask) | (g[i] & mask);
    /* (h + s) mod 2^128 */
    w[0] = h[0] | (h[1] << 26);
    w[1] = (h[1] >> 6) | (h[2] << 20);
    w[2] = (h[2] >> 12) | (h[3] << 14);
    w[3] = (h[3] >> 18) | (h[4] << 8);
    for (i = 0, f = 0; i < 4; i++) {
        f += (uint64_t)w[i] + p->s[i];
        fgl__le_store(tag + 4 * i, (uint32_t)f, 4);
        f >>= 32;
    }
    fgl__crypto_wipe(p, sizeof *p);
    fgl__crypto_wipe(h, sizeof h);
    fgl__crypto_wipe(g, sizeof g);
}

FGLDEF void fgl_poly1305(unsigned char tag[16], const unsigned char *m, size_t n, const unsigned char key[32]) {
    fgl__poly1305 p;
    fgl__poly1305_init(&p, key);
    fgl__poly1305_update(&p, m, n);
    fgl__poly1305_finish(&p, tag);
}

/* The AEAD's tag (section 2.8): Poly1305 keyed by the first 32 bytes of
 * block 0 over aad, padding, ct, padding, and the two lengths as 64-bit
 * little-endian numbers. */
static void fgl__aead_tag(unsigned char tag[16], const unsigned char *ct, size_t n, const unsigned char *aad,
                          size_t n_aad, const unsigned char key[32], const unsigned char nonce[12]) {
    uint32_t st[16], ks[16];
    unsigned char otk[32], lens[16];
    fgl__poly1305 p;
    int i;
    fgl__chacha20_state_nonce(st, key, nonce, 0);
    fgl__chacha20_block(ks, st);
    for (i = 0; i < 8; i++) fgl__le_store(otk + 4 * i, ks[i], 4);
    fgl__poly1305_init(&p, otk);
    fgl__poly1305_update(&p, aad, n_aad);
    fgl__poly1305_pad16(&p, n_aad);
    fgl__poly1305_update(&p, ct, n);
    fgl__poly1305_pad16(&p, n);
    fgl__le_store(lens, (uint64_t)n_aad, 8);
    fgl__le_store(lens + 8, (uint64_t)n, 8);
    fgl__poly1305_update(&p, lens, 16);
    fgl__poly1305_finish(&p, tag);
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    fgl__crypto_wipe(otk, sizeof otk);
}

FGLDEF void fgl_aead_seal(unsigned char *ct, unsigned char tag[16], const unsigned char *pt, size_t n,
                          const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                          const unsigned char nonce[12]) {
    fgl_chacha20_xor(ct, pt, n, key, nonce, 1);
    fgl__aead_tag(tag, ct, n, aad, n_aad, key, nonce);
}

FGLDEF int fgl_aead_open(unsigned char *pt, const unsigned char *ct, size_t n, const unsigned char tag[16],
                         const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                         const unsigned char nonce[12]) {
    unsigned char want[16];
    unsigned diff = 0;
    int i;
    fgl__aead_tag(want, ct, n, aad, n_aad, key, nonce);
    for (i = 0; i < 16; i++) diff |= (unsigned)(want[i] ^ tag[i]); /* every byte, whatever the first differing one */
    if (diff) {
        if (n) fgl__crypto_wipe(pt, n);
        return -1;
    }
    fgl_chacha20_xor(pt, ct, n, key, nonce, 1);
    return 0;
}

/* --- X25519 ------------------------------------------------------------------------- */

/* A number mod p = 2^255 - 19 in ten signed limbs of alternately 26 and 25
 * bits: limb i weighs 2^ceil(25.5 i). After a carry each limb is within
 * half its width of zero (|v| <= 2^25), after a sum or difference of two
 * such within 2^26, small enough that every product below fits in 64 bits. */
typedef struct fgl__fe {
    int32_t v[10];
} fgl__fe;

static int fgl__fe_width(int i) { return i & 1 ? 25 : 26; }

/* floor(x / 2^s) (0 < s < 63) without shifting a negative number, which C99
 * leaves to the implementation: x + 2^63 taken as unsigned is not. */
static int64_t fgl__fe_floor_shift(int64_t x, int s) {
    return (int64_t)(((uint64_t)x + ((uint64_t)1 << 63)) >> s) - ((int64_t)1 << (63 - s));
}

/* Carries limb i of t (width s) into limb `to`, times m: what is left of
 * t_i is within half its width of zero (the carry rounded). */
#define FGL__FE_CARRY(t, i, s, to, m)                                                                        \
    do {                                                                                                     \
        int64_t c_ = fgl__fe_floor_shift((t)[i] + ((int64_t)1 << ((s) - 1)), s);                            \
        (t)[i] -= c_ * ((int64_t)1 << (s));                                                                  \
        (t)[to] += (m) * c_;                                                                                 \
    } while (0)

/* h = t carried: the limbs within about half their widths of zero (limbs 1
 * and 5 within 2^24 + 2^15), the carry out of limb 9 (2^255) brought back
 * as 19 times it. Two chains, from limbs 0 and 4, run interleaved; limb 4
 * is carried twice, and limb 0 once more after the wrapped carry (19 x up
 * to 2^36). */
static void fgl__fe_carry(fgl__fe *h, int64_t t[10]) {
    int i;
    FGL__FE_CARRY(t, 0, 26, 1, 1);
    FGL__FE_CARRY(t, 4, 26, 5, 1);
    FGL__FE_CARRY(t, 1, 25, 2, 1);
    FGL__FE_CARRY(t, 5, 25, 6, 1);
    FGL__FE_CARRY(t, 2, 26, 3, 1);
    FGL__FE_CARRY(t, 6, 26, 7, 1);
    FGL__FE_CARRY(t, 3, 25, 4, 1);
    FGL__FE_CARRY(t, 7, 25, 8, 1);
    FGL__FE_CARRY(t, 4, 26, 5, 1);
    FGL__FE_CARRY(t, 8, 26, 9, 1);
    FGL__FE_CARRY(t, 9, 25, 0, 19);
    FGL__FE_CARRY(t, 0, 26, 1, 1);
    for (i = 0; i < 10; i++) h->v[i] = (int32_t)t[i];
}

static void fgl__fe_set(fgl__fe *h, int32_t v0) {
    int i;
    h->v[0] = v0;
    for (i = 1; i < 10; i++) h->v[i] = 0;
}

static void fgl__fe_add(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) h->v[i] = f->v[i] + g->v[i];
}

static void fgl__fe_sub(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) h->v[i] = f->v[i] - g->v[i];
}

/* w[p][m] for fgl__fe_mul and fgl__fe_sq: the factor of f_i (i of parity
 * p) in limb k = m + i - 10 of a product with g: g_(m mod 10), times 19
 * when m < 10 (the sum wrapped past limb 9), times 2 when i and m are odd. */
static void fgl__fe_factors(int64_t w[2][20], const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) {
        w[0][i] = 19 * (int64_t)g->v[i];
        w[0][i + 10] = g->v[i];
        w[1][i] = w[0][i] * (i & 1 ? 2 : 1);
        w[1][i + 10] = w[0][i + 10] * (i & 1 ? 2 : 1);
    }
}

/* Limb k of a product: the ten terms f_i w[i & 1][k - i + 10] written out
 * with constant indices (straight-line code: every compiler keeps it in
 * registers, where loops were unrolled by some and not others). In a
 * square the term of (i, j) equals that of (j, i): FGL__FE_PAIR counts
 * the first of each pair twice and the second not at all, a factor 0 the
 * compiler folds away. */
#define FGL__FE_TERM(i, k, x) ((int64_t)f->v[i] * w[(i) & 1][(k) - (i) + 10] * (x))
#define FGL__FE_ONE(i, k) FGL__FE_TERM(i, k, 1)
#define FGL__FE_PAIR(i, k) FGL__FE_TERM(i, k, (((k) - (i) + 10) % 10 > (i) ? 2 : ((k) - (i) + 10) % 10 == (i)))
#define FGL__FE_LIMB(T, k)                                                                                  \
    (T(0, k) + T(1, k) + T(2, k) + T(3, k) + T(4, k) + T(5, k) + T(6, k) + T(7, k) + T(8, k) + T(9, k))

/* h = f g. Limbs i and j meet at 2^(p_i + p_j), which is 2^p_(i+j), or
 * twice it when i and j are both odd (25.5 rounded up twice); past limb 9
 * 2^255 = 19. With |f_i|, |g_j| at most a little over 2^26 each product is
 * below 2 x 19 x 2^52.01 and the ten of a limb below 2^61. h may be f or g. */
static void fgl__fe_mul(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int64_t t[10], w[2][20];
    fgl__fe_factors(w, g);
    t[0] = FGL__FE_LIMB(FGL__FE_ONE, 0);
    t[1] = FGL__FE_LIMB(FGL__FE_ONE, 1);
    t[2] = FGL__FE_LIMB(FGL__FE_ONE, 2);
    t[3] = FGL__FE_LIMB(FGL__FE_ONE, 3);
    t[4] = FGL__FE_LIMB(FGL__FE_ONE, 4);
    t[5] = FGL__FE_LIMB(FGL__FE_ONE, 5);
    t[6] = FGL__FE_LIMB(FGL__FE_ONE, 6);
    t[7] = FGL__FE_LIMB(FGL__FE_ONE, 7);
    t[8] = FGL__FE_LIMB(FGL__FE_ONE, 8);
    t[9] = FGL__FE_LIMB(FGL__FE_ONE, 9);
    fgl__fe_carry(h, t);
}

/* h = f^2: the 55 distinct products of fgl__fe_mul's 100 */
static void fgl__fe_sq(fgl__fe *h, const fgl__fe *f) {
    int64_t t[10], w[2][20];
    fgl__fe_factors(w, f);
    t[0] = FGL__FE_LIMB(FGL__FE_PAIR, 0);
    t[1] = FGL__FE_LIMB(FGL__FE_PAIR, 1);
    t[2] = FGL__FE_LIMB(FGL__FE_PAIR, 2);
    t[3] = FGL__FE_LIMB(FGL__FE_PAIR, 3);
    t[4] = FGL__FE_LIMB(FGL__FE_PAIR, 4);
    t[5] = FGL__FE_LIMB(FGL__FE_PAIR, 5);
    t[6] = FGL__FE_LIMB(FGL__FE_PAIR, 6);
    t[7] = FGL__FE_LIMB(FGL__FE_PAIR, 7);
    t[8] = FGL__FE_LIMB(FGL__FE_PAIR, 8);
    t[9] = FGL__FE_LIMB(FGL__FE_PAIR, 9);
    fgl__fe_carry(h, t);
}

/* h = f squared n times */
static void fgl__fe_sq_n(fgl__fe *h, const fgl__fe *f, int n) {
    fgl__fe_sq(h, f);
    while (--n > 0) fgl__fe_sq(h, h);
}

/* h = f c for a small constant c (< 2^20) */
static void fgl__fe_mul_small(fgl__fe *h, const fgl__fe *f, int32_t c) {
    int64_t t[10];
    int i;
    for (i = 0; i < 10; i++) t[i] = (int64_t)f->v[i] * c;
    fgl__fe_carry(h, t);
}

/* h = 1 / f = f^(p - 2) (0 for 0), by the chain of squarings that builds
 * f^(2^k - 1) for k = 5, 10, 20, 40, 50, 100, 200, 250; then
 * p - 2 = (2^250 - 1) 2^5 + 11. */
static void fgl__fe_invert(fgl__fe *h, const fgl__fe *f) {
    fgl__fe f2, f9, f11, a, b, c;
    fgl__fe_sq(&f2, f);               /* f^2 */
    fgl__fe_sq_n(&a, &f2, 2);         /* f^8 */
    fgl__fe_mul(&f9, &a, f);          /* f^9 */
    fgl__fe_mul(&f11, &f9, &f2);      /* f^11 */
    fgl__fe_sq(&a, &f11);             /* f^22 */
    fgl__fe_mul(&a, &a, &f9);         /* f^31 = f^(2^5 - 1) */
    fgl__fe_sq_n(&b, &a, 5);
    fgl__fe_mul(&b, &b, &a);          /* 2^10 - 1 */
    fgl__fe_sq_n(&c, &b, 10);
    fgl__fe_mul(&c, &c, &b);          /* 2^20 - 1 */
    fgl__fe_sq_n(&a, &c, 20);
    fgl__fe_mul(&a, &a, &c);          /* 2^40 - 1 */
    fgl__fe_sq_n(&a, &a, 10);
    fgl__fe_mul(&b, &a, &b);          /* 2^50 - 1 */
    fgl__fe_sq_n(&a, &b, 50);
    fgl__fe_mul(&c, &a, &b);          /* 2^100 - 1 */
    fgl__fe_sq_n(&a, &c, 100);
    fgl__fe_mul(&a, &a, &c);          /* 2^200 - 1 */
    fgl__fe_sq_n(&a, &a, 50);
    fgl__fe_mul(&a, &a, &b);          /* 2^250 - 1 */
    fgl__fe_sq_n(&a, &a, 5);
    fgl__fe_mul(h, &a, &f11);         /* 2^255 - 32 + 11 = p - 2 */
}

/* The 255 low bits of s, little-endian (RFC 7748 masks the top bit of u);
 * values from p to 2^255 - 1 are accepted, as the RFC asks. */
static void fgl__fe_frombytes(fgl__fe *h, const unsigned char s[32]) {
    uint64_t acc = 0;
    int bits = 0, i, k = 0;
    for (i = 0; i < 10; i++) {
        int w = fgl__fe_width(i);
        while (bits < w) {
            acc |= (uint64_t)s[k++] << bits;
            bits += 8;
        }
        h->v[i] = (int32_t)(acc & (((uint64_t)1 << w) - 1));
        acc >>= w;
        bits -= w;
    }
}

/* The unique representative in [0, p), 32 bytes little-endian. */
static void fgl__fe_tobytes(unsigned char s[32], const fgl__fe *f) {
    int64_t t[10], c, q;
    uint64_t acc = 0;
    int i, pass, bits = 0, k = 0;
    for (i = 0; i < 10; i++) t[i] = f->v[i];
    /* floor carries put each limb in [0, 2^width); the first pass leaves a
     * carry of a few units folded into limb 0, the second takes it through
     * (the total is then in [0, 2^255)); the third changes nothing but
     * makes that plain */
    for (pass = 0; pass < 3; pass++)
        for (i = 0; i < 10; i++) {
            int w = fgl__fe_width(i);
            c = fgl__fe_floor_shift(t[i], w);
            t[i] -= c * ((int64_t)1 << w);
            if (i < 9) t[i + 1] += c;
            else t[0] += 19 * c;
        }
    /* t >= p exactly when t + 19 reaches 2^255: then t - p = t + 19 - 2^255 */
    q = (t[0] + 19) >> 26;
    for (i = 1; i < 10; i++) q = (t[i] + q) >> fgl__fe_width(i);
    t[0] += 19 * q;
    for (i = 0; i < 9; i++) {
        int w = fgl__fe_width(i);
        t[i + 1] += t[i] >> w;
        t[i] &= ((int64_t)1 << w) - 1;
    }
    t[9] &= ((int64_t)1 << 25) - 1; /* drops the 2^255 */
    for (i = 0; i < 10; i++) {
        acc |= (uint64_t)t[i] << bits;
        bits += fgl__fe_width(i);
        while (bits >= 8) {
            s[k++] = (unsigned char)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
    s[k] = (unsigned char)acc; /* the last 7 bits */
}

/* Swaps f and g when swap is 1, leaves them when 0, with the same
 * instructions either way. */
static void fgl__fe_cswap(fgl__fe *f, fgl__fe *g, int32_t swap) {
    int32_t mask = -swap;
    int i;
    for (i = 0; i < 10; i++) {
        int32_t x = mask & (f->v[i] ^ g->v[i]);
        f->v[i] ^= x;
        g->v[i] ^= x;
    }
}

FGLDEF void fgl_x25519(unsigned char out[32], const unsigned char scalar[32], const unsigned char u[32]) {
    unsigned char k[32];
    fgl__fe x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t;
    int32_t swap = 0;
    int pos;
    memcpy(k, scalar, 32);
    k[0] &= 248; /* a multiple of the cofactor 8, with bit 254 set */
    k[31] &= 127;
    k[31] |= 64;
    fgl__fe_frombytes(&x1, u);
    fgl__fe_set(&x2, 1);
    fgl__fe_set(&z2, 0);
    x3 = x1;
    fgl__fe_set(&z3, 1);
    /* the Montgomery ladder of RFC 7748, section 5: (x2 : z2) = k' u and
     * (x3 : z3) = (k' + 1) u for the bits k' of k read so far */
    for (pos = 254; pos >= 0; pos--) {
        int32_t bit = (k[pos >> 3] >> (pos & 7)) & 1;
        swap ^= bit;
        fgl__fe_cswap(&x2, &x3, swap);
        fgl__fe_cswap(&z2, &z3, swap);
        swap = bit;
        fgl__fe_add(&a, &x2, &z2);
        fgl__fe_sq(&aa, &a);
        fgl__fe_sub(&b, &x2, &z2);
        fgl__fe_sq(&bb, &b);
        fgl__fe_sub(&e, &aa, &bb);
        fgl__fe_add(&c, &x3, &z3);
        fgl__fe_sub(&d, &x3, &z3);
        fgl__fe_mul(&da, &d, &a);
        fgl__fe_mul(&cb, &c, &b);
        fgl__fe_add(&t, &da, &cb);
        fgl__fe_sq(&x3, &t);
        fgl__fe_sub(&t, &da, &cb);
        fgl__fe_sq(&t, &t);
        fgl__fe_mul(&z3, &x1, &t);
        fgl__fe_mul(&x2, &aa, &bb);
        fgl__fe_mul_small(&t, &e, 121665); /* a24 = (486662 - 2) / 4 */
        fgl__fe_add(&t, &aa, &t);
        fgl__fe_mul(&z2, &e, &t);
    }
    fgl__fe_cswap(&x2, &x3, swap);
    fgl__fe_cswap(&z2, &z3, swap);
    fgl__fe_invert(&t, &z2);
    fgl__fe_mul(&x2, &x2, &t);
    fgl__fe_tobytes(out, &x2);
    fgl__crypto_wipe(k, sizeof k);
    fgl__crypto_wipe(&x2, sizeof x2);
    fgl__crypto_wipe(&z2, sizeof z2);
    fgl__crypto_wipe(&x3, sizeof x3);
    fgl__crypto_wipe(&z3, sizeof z3);
}

FGLDEF void fgl_x25519_public(unsigned char pk[32], const unsigned char sk[32]) {
    static const unsigned char base[32] = {9};
    fgl_x25519(pk, sk, base);
}

/* --- Shamir secret sharing over GF(2^61 - 1) ----------------------------------------- */

#define FGL__GF61_P ((((uint64_t)1) << 61) - 1)
#define FGL__SHAMIR_CHUNKS 5
#define FGL__SHAMIR_LABEL 0x6d616853u /* "Sham", the coins' nonce word */

/* a - p when a >= p, for a < 2p; by a mask, not a branch */
static uint64_t fgl__gf61_reduce(uint64_t a) {
    uint64_t s = a - FGL__GF61_P;
    return s + (FGL__GF61_P & (0 - (s >> 63)));
}

static uint64_t fgl__gf61_add(uint64_t a, uint64_t b) { return fgl__gf61_reduce(a + b); }

/* a b mod p for a, b < p, in 32-bit halves: a b = hi 2^64 + mid 2^32 + lo
 * (hi < 2^58, mid < 2^62), and 2^61 = 1 (mod p) folds each part below
 * 2^61: hi 2^64 = 8 hi, mid 2^32 = (mid >> 29) + (mid mod 2^29) 2^32,
 * lo = (lo >> 61) + (lo mod 2^61). Their sum is below 2^63. */
FGL__PRIVATE uint64_t fgl__gf61_mul(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t lo = a0 * b0, mid = a1 * b0 + a0 * b1, hi = a1 * b1, s;
    s = (hi << 3) + (mid >> 29) + ((mid & ((1u << 29) - 1)) << 32) + (lo >> 61) + (lo & FGL__GF61_P);
    return fgl__gf61_reduce((s & FGL__GF61_P) + (s >> 61));
}

/* 1 / a = a^(p - 2) (Fermat; 0 for 0) */
FGL__PRIVATE uint64_t fgl__gf61_inv(uint64_t a) {
    uint64_t r = 1, e = FGL__GF61_P - 2;
    for (; e; e >>= 1) {
        if (e & 1) r = fgl__gf61_mul(r, a);
        a = fgl__gf61_mul(a, a);
    }
    return r;
}

/* Chunk c of the secret: bytes 7c.. (7 of them, 4 for the last). */
static int fgl__shamir_chunk_len(int c) { return c < FGL__SHAMIR_CHUNKS - 1 ? 7 : 32 - 7 * (FGL__SHAMIR_CHUNKS - 1); }

/* Coefficient `degree` of chunk c's polynomial: the first 61-bit word of
 * ChaCha20's keystream under the coins' key, nonce (label, c, degree), that
 * is below p (a word is rejected with probability 2^-61). One stream per
 * coefficient, so the split can take them from the top degree down
 * (Horner) without storing them. */
static uint64_t fgl__shamir_coef(const unsigned char key[32], int c, uint32_t degree) {
    uint32_t st[16], ks[16];
    uint64_t v = FGL__GF61_P;
    int i;
    fgl__chacha20_state(st, key, 0, FGL__SHAMIR_LABEL, (uint32_t)c, degree);
    for (; v == FGL__GF61_P; st[12]++) {
        fgl__chacha20_block(ks, st);
        for (i = 0; i < 16 && v == FGL__GF61_P; i += 2) v = (ks[i] | (uint64_t)ks[i + 1] << 32) & FGL__GF61_P;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    return v;
}

FGLDEF int fgl_shamir_split(unsigned char *shares, const unsigned char secret[32], int t, int n,
                            const unsigned char coin_key[32]) {
    int c, i;
    uint32_t d;
    if (t < 1 || t > n) return FGL_ERR_ARG;
    for (c = 0; c < FGL__SHAMIR_CHUNKS; c++) {
        unsigned char *y = shares + 8 * c; /* share i's value of this chunk at y + i FGL_SHARE_BYTES */
        uint64_t s = fgl__le_load(secret + 7 * c, fgl__shamir_chunk_len(c)), a;
        for (i = 0; i < n; i++) fgl__le_store(y + (size_t)i * FGL_SHARE_BYTES, 0, 8);
        /* Horner from the top: y = y x + a_d for d = t - 1, ..., 1, then y x + s */
        for (d = (uint32_t)t - 1; d >= 1; d--) {
            a = fgl__shamir_coef(coin_key, c, d);
            for (i = 0; i < n; i++) {
                unsigned char *yi = y + (size_t)i * FGL_SHARE_BYTES;
                fgl__le_store(yi, fgl__gf61_add(fgl__gf61_mul(fgl__le_load(yi, 8), (uint64_t)i + 1), a), 8);
            }
        }
        for (i = 0; i < n; i++) {
            unsigned char *yi = y + (size_t)i * FGL_SHARE_BYTES;
            fgl__le_store(yi, fgl__gf61_add(fgl__gf61_mul(fgl__le_load(yi, 8), (uint64_t)i + 1), s), 8);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_shamir_combine(unsigned char secret[32], const unsigned char *shares, const uint32_t *xs, int t) {
    uint64_t acc[FGL__SHAMIR_CHUNKS] = {0};
    int i, j, c, bad = t < 1;
    for (i = 0; i < t && !bad; i++) {
        const unsigned char *y = shares + (size_t)i * FGL_SHARE_BYTES;
        bad |= xs[i] == 0;
        for (j = 0; j < i; j++) bad |= xs[j] == xs[i];
        for (c = 0; c < FGL__SHAMIR_CHUNKS; c++) bad |= fgl__le_load(y + 8 * c, 8) >= FGL__GF61_P;
    }
    /* secret = sum_i y_i l_i with l_i = prod_{j != i} x_j / (x_j - x_i), the
     * Lagrange basis at 0 */
    for (i = 0; i < t && !bad; i++) {
        const unsigned char *y = shares + (size_t)i * FGL_SHARE_BYTES;
        uint64_t num = 1, den = 1, l;
        for (j = 0; j < t; j++)
            if (j != i) {
                num = fgl__gf61_mul(num, xs[j]);
                den = fgl__gf61_mul(den, fgl__gf61_reduce((uint64_t)xs[j] + FGL__GF61_P - xs[i]));
            }
        l = fgl__gf61_mul(num, fgl__gf61_inv(den));
        for (c = 0; c < FGL__SHAMIR_CHUNKS; c++)
            acc[c] = fgl__gf61_add(acc[c], fgl__gf61_mul(l, fgl__le_load(y + 8 * c, 8)));
    }
    for (c = 0; c < FGL__SHAMIR_CHUNKS && !bad; c++) bad |= acc[c] >> (8 * fgl__shamir_chunk_len(c)) != 0;
    for (c = 0; c < FGL__SHAMIR_CHUNKS; c++)
        fgl__le_store(secret + 7 * c, bad ? 0 : acc[c], fgl__shamir_chunk_len(c));
    fgl__crypto_wipe(acc, sizeof acc);
    return bad ? FGL_ERR_ARG : FGL_OK;
}
#include "../alone.h"
