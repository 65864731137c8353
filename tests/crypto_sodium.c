/* crypto_sodium.c - fgl's cryptography (src/fed/crypto.h) against
 * libsodium's on random inputs: X25519 (crypto_scalarmult and
 * crypto_scalarmult_base), ChaCha20 (crypto_stream_chacha20_ietf_xor_ic),
 * Poly1305 (crypto_onetimeauth_poly1305) and ChaCha20-Poly1305
 * (crypto_aead_chacha20poly1305_ietf_encrypt and _decrypt), each way.
 * Prints one "ok - ..." or "not ok - ..." line a primitive, as fgl's tests
 * do (tests/run.sh counts them). Built and run by tests/test_crypto_sodium.sh
 * where libsodium is installed. */
#include "../fgl_fed.h"
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 3000
#define MAX_LEN 2200 /* past the 1 KiB that fgl_chacha20_xor takes sixteen blocks at a time */

static void random_bytes(fgl_rng *r, unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(fgl_rng_u64(r) >> 56);
}

static void show(const char *what, const unsigned char *p, size_t n) {
    size_t i;
    printf("#   %s:", what);
    for (i = 0; i < n && i < 48; i++) printf(" %02x", p[i]);
    printf("%s\n", n > 48 ? " ..." : "");
}

/* "ok - what" when bad is 0, else "not ok - what" and the first case */
static int report(int bad, const char *what) {
    printf("%s - %s\n", bad ? "not ok" : "ok", what);
    return bad != 0;
}

static int check_x25519(fgl_rng *r) {
    unsigned char k[32], u[32], a[32], b[32];
    int i, bad = 0;
    for (i = 0; i < ROUNDS && !bad; i++) {
        random_bytes(r, k, 32);
        random_bytes(r, u, 32); /* u's top bit set half the time: both ignore it */
        fgl_x25519(a, k, u);
        if (crypto_scalarmult(b, k, u) != 0) continue; /* a point of small order (probability 2^-250) */
        if (memcmp(a, b, 32) != 0) {
            bad = 1;
            show("scalar", k, 32);
            show("u", u, 32);
            show("fgl", a, 32);
            show("libsodium", b, 32);
        }
        fgl_x25519_public(a, k);
        crypto_scalarmult_base(b, k);
        if (!bad && memcmp(a, b, 32) != 0) {
            bad = 1;
            show("public key of", k, 32);
        }
    }
    return report(bad, "X25519 and its public key agree with libsodium's crypto_scalarmult (3000 random pairs)");
}

static int check_chacha20(fgl_rng *r) {
    static unsigned char in[MAX_LEN], a[MAX_LEN], b[MAX_LEN];
    unsigned char key[32], nonce[12];
    int i, bad = 0;
    for (i = 0; i < ROUNDS && !bad; i++) {
        size_t n = (size_t)(fgl_rng_u64(r) % (MAX_LEN + 1));
        /* a counter that does not wrap within the message: libsodium carries
         * into the nonce where RFC 8439 (and fgl) wrap */
        uint32_t counter = (uint32_t)(fgl_rng_u64(r) % (0xffffffffull - MAX_LEN / 64 - 1));
        if (i % 4 == 0) counter = (uint32_t)i;
        random_bytes(r, key, 32);
        random_bytes(r, nonce, 12);
        random_bytes(r, in, n);
        fgl_chacha20_xor(a, in, n, key, nonce, counter);
        crypto_stream_chacha20_ietf_xor_ic(b, in, n, nonce, counter, key);
        if (memcmp(a, b, n) != 0) {
            bad = 1;
            printf("#   %d bytes from block %lu\n", (int)n, (unsigned long)counter);
            show("fgl", a, n);
            show("libsodium", b, n);
        }
    }
    return report(bad, "ChaCha20 agrees with libsodium's crypto_stream_chacha20_ietf_xor_ic (3000 random messages)");
}

static int check_poly1305(fgl_rng *r) {
    static unsigned char m[MAX_LEN];
    unsigned char key[32], a[16], b[16];
    int i, bad = 0;
    for (i = 0; i < ROUNDS && !bad; i++) {
        size_t n = (size_t)(fgl_rng_u64(r) % (MAX_LEN + 1));
        random_bytes(r, key, 32);
        random_bytes(r, m, n);
        if (i % 8 == 1) memset(m, 0xff, n); /* the largest blocks */
        fgl_poly1305(a, m, n, key);
        crypto_onetimeauth_poly1305(b, m, n, key);
        if (memcmp(a, b, 16) != 0) {
            bad = 1;
            printf("#   %d bytes\n", (int)n);
            show("fgl", a, 16);
            show("libsodium", b, 16);
        }
    }
    return report(bad, "Poly1305 agrees with libsodium's crypto_onetimeauth_poly1305 (3000 random messages)");
}

static int check_aead(fgl_rng *r) {
    static unsigned char pt[MAX_LEN], ct[MAX_LEN], sct[MAX_LEN + 16], back[MAX_LEN];
    unsigned char key[32], nonce[12], aad[64], tag[16];
    int i, bad = 0;
    for (i = 0; i < ROUNDS && !bad; i++) {
        size_t n = (size_t)(fgl_rng_u64(r) % (MAX_LEN + 1)), na = (size_t)(fgl_rng_u64(r) % 65);
        unsigned long long slen = 0, blen = 0;
        random_bytes(r, key, 32);
        random_bytes(r, nonce, 12);
        random_bytes(r, aad, na);
        random_bytes(r, pt, n);
        fgl_aead_seal(ct, tag, pt, n, aad, na, key, nonce);
        crypto_aead_chacha20poly1305_ietf_encrypt(sct, &slen, pt, n, aad, na, NULL, nonce, key);
        if (slen != n + 16 || memcmp(ct, sct, n) != 0 || memcmp(tag, sct + n, 16) != 0) {
            bad = 1;
            printf("#   seal: %d bytes, %d of aad\n", (int)n, (int)na);
            show("fgl tag", tag, 16);
            show("libsodium tag", sct + n, 16);
            break;
        }
        /* each opens what the other sealed, and refuses it altered */
        if (fgl_aead_open(back, sct, n, sct + n, aad, na, key, nonce) != 0 || memcmp(back, pt, n) != 0) {
            bad = 1;
            printf("#   fgl_aead_open refused libsodium's message (%d bytes)\n", (int)n);
        }
        if (crypto_aead_chacha20poly1305_ietf_decrypt(back, &blen, NULL, sct, n + 16, aad, na, nonce, key) != 0 ||
            blen != n || memcmp(back, pt, n) != 0) {
            bad = 1;
            printf("#   libsodium refused fgl's message (%d bytes)\n", (int)n);
        }
        sct[(size_t)(fgl_rng_u64(r) % (n + 16))] ^= 0x20;
        if (fgl_aead_open(back, sct, n, sct + n, aad, na, key, nonce) != -1) {
            bad = 1;
            printf("#   fgl_aead_open took an altered message (%d bytes)\n", (int)n);
        }
    }
    return report(bad, "ChaCha20-Poly1305 agrees with libsodium's crypto_aead_chacha20poly1305_ietf_* both ways "
                       "(3000 random messages)");
}

int main(void) {
    fgl_rng r;
    int failed = 0;
    if (sodium_init() < 0) {
        printf("not ok - libsodium does not initialise\n");
        return 1;
    }
    fgl_rng_init(&r, 1, 7748);
    failed += check_x25519(&r);
    failed += check_chacha20(&r);
    failed += check_poly1305(&r);
    failed += check_aead(&r);
    return failed ? 1 : 0;
}
