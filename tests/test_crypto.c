/* Tests of the cryptography of fgl_fed.h (src/fed/crypto.h): X25519
 * against RFC 7748's vectors (section 5.2, the iterated test to 1,000,
 * section 6.1's key exchange); ChaCha20, Poly1305 and ChaCha20-Poly1305
 * against RFC 8439's (sections 2.3.2 to 2.8.2 and Appendix A); a tampered
 * ciphertext, tag or AAD refused; the keystream as words equal to the
 * keystream as bytes; Shamir sharing over GF(2^61 - 1) (any t shares give
 * the secret, fewer do not, bad arguments refused); the operating system's
 * entropy. tests/test_crypto_sodium.sh compares with libsodium on random
 * inputs. */
#include <time.h>

#include "../fgl_fed.h"
#include "ft.h"

/* The bytes of a hex string in out (blanks and colons between the digits
 * skipped, as the RFCs print them); returns how many. */
static size_t hex(unsigned char *out, const char *s) {
    size_t n = 0;
    int hi = -1;
    for (; *s; s++) {
        int v = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : -1;
        if (v < 0) continue;
        if (hi < 0) hi = v;
        else {
            out[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

/* 1 if the n bytes at got are the hex string want (and want has n bytes) */
static int same_hex(const unsigned char *got, size_t n, const char *want) {
    unsigned char w[1024];
    size_t m = hex(w, want);
    return m == n && memcmp(got, w, n) == 0;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(unsigned char *p, uint64_t v) {
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> 8 * i);
}

static void random_bytes(fgl_rng *r, unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(fgl_rng_u64(r) >> 56);
}

/* --- X25519 (RFC 7748) ---------------------------------------------------------------- */

static void test_x25519_rfc7748_vectors(void) {
    static const char *v[2][3] = {
        {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
         "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
         "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
        {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
         "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493", /* top bit set: ignored */
         "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"}};
    int i;
    for (i = 0; i < 2; i++) {
        unsigned char k[32], u[32], out[32];
        hex(k, v[i][0]);
        hex(u, v[i][1]);
        fgl_x25519(out, k, u);
        FT_CHECK(same_hex(out, 32, v[i][2]), "section 5.2 vector %d", i + 1);
    }
}

/* k = u = 9, then k, u = X25519(k, u), k: after 1 and 1,000 iterations */
static void test_x25519_iterated(void) {
    unsigned char k[32] = {9}, u[32] = {9}, out[32];
    int i;
    for (i = 1; i <= 1000; i++) {
        fgl_x25519(out, k, u);
        memcpy(u, k, 32);
        memcpy(k, out, 32);
        if (i == 1)
            FT_CHECK(same_hex(k, 32, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"),
                     "after one iteration");
    }
    FT_CHECK(same_hex(k, 32, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"),
             "after 1,000 iterations");
}

static void test_x25519_diffie_hellman(void) {
    unsigned char a[32], b[32], pa[32], pb[32], sa[32], sb[32];
    hex(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    hex(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    fgl_x25519_public(pa, a);
    fgl_x25519_public(pb, b);
    FT_CHECK(same_hex(pa, 32, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
             "Alice's public key");
    FT_CHECK(same_hex(pb, 32, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"), "Bob's public key");
    fgl_x25519(sa, a, pb);
    fgl_x25519(sb, b, pa);
    FT_CHECK(same_hex(sa, 32, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"), "Alice's secret");
    FT_CHECK(memcmp(sa, sb, 32) == 0, "Bob's secret is Alice's");
}

/* Random keys agree both ways; u >= p (non-canonical) equals u - p; a
 * low-order u gives zeros. */
static void test_x25519_random_and_edges(void) {
    fgl_rng r;
    unsigned char a[32], b[32], pa[32], pb[32], sa[32], sb[32], u[32], v[32], o1[32], o2[32];
    int i, agree = 1;
    fgl_rng_init(&r, 25519, 0);
    for (i = 0; i < 50; i++) {
        random_bytes(&r, a, 32);
        random_bytes(&r, b, 32);
        fgl_x25519_public(pa, a);
        fgl_x25519_public(pb, b);
        fgl_x25519(sa, a, pb);
        fgl_x25519(sb, b, pa);
        agree &= memcmp(sa, sb, 32) == 0;
    }
    FT_CHECK(agree, "random key pairs agree");
    /* u = p + 9 (= 9 mod p) and u = 9 */
    memset(u, 0xff, 32);
    u[0] = 0xed + 9;
    u[31] = 0x7f;
    memset(v, 0, 32);
    v[0] = 9;
    fgl_x25519(o1, a, u);
    fgl_x25519(o2, a, v);
    FT_CHECK(memcmp(o1, o2, 32) == 0, "u = p + 9 acts as u = 9");
    memset(u, 0, 32); /* u = 0 and u = 1: small order */
    fgl_x25519(o1, a, u);
    memset(v, 0, 32);
    FT_CHECK(memcmp(o1, v, 32) == 0, "u = 0 gives zeros");
    u[0] = 1;
    fgl_x25519(o1, a, u);
    FT_CHECK(memcmp(o1, v, 32) == 0, "u = 1 gives zeros");
}

/* --- ChaCha20 (RFC 8439) -------------------------------------------------------------- */

static const char *key_0_1f = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
static const char *key_80_9f = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
static const char *key_1c92 = "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
                              "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0";
static const char sunscreen[] = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
                                "the future, sunscreen would be it.";
static const char ietf[] = "Any submission to the IETF intended by the Contributor for publication as all or part of "
                           "an IETF Internet-Draft or RFC and any statement made within the context of an IETF "
                           "activity is considered an \"IETF Contribution\". Such statements include oral "
                           "statements in IETF sessions, as well as written and electronic communications made at "
                           "any time or place, which are addressed to";
static const char jabberwocky[] = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n"
                                  "All mimsy were the borogoves,\nAnd the mome raths outgrabe.";

static void test_chacha20_block_2_3_2(void) {
    unsigned char key[32], nonce[12], out[64];
    uint32_t w[16];
    hex(key, key_0_1f);
    hex(nonce, "000000090000004a00000000");
    fgl_chacha20_xor(out, NULL, 64, key, nonce, 1);
    FT_CHECK(same_hex(out, 64,
                      "10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4"
                      "c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e"
                      "d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2"
                      "b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e"),
             "the serialized block");
    fgl_chacha20_words(w, 16, key, nonce, 1); /* the state at the end of the operation */
    FT_CHECK(w[0] == 0xe4e7f110u && w[5] == 0x0368c033u && w[10] == 0x05d7c214u && w[15] == 0x4e3c50a2u,
             "the block as words: %08x %08x %08x %08x", (unsigned)w[0], (unsigned)w[5], (unsigned)w[10],
             (unsigned)w[15]);
}

static void test_chacha20_encrypt_2_4_2(void) {
    unsigned char key[32], nonce[12], ct[114], pt[114];
    FT_CHECK(sizeof sunscreen - 1 == 114, "the plaintext is 114 bytes");
    hex(key, key_0_1f);
    hex(nonce, "000000000000004a00000000");
    fgl_chacha20_xor(ct, (const unsigned char *)sunscreen, 114, key, nonce, 1);
    FT_CHECK(same_hex(ct, 114,
                      "6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81"
                      "e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b"
                      "f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57"
                      "16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8"
                      "07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e"
                      "52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36"
                      "5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42"
                      "87 4d"),
             "the ciphertext");
    fgl_chacha20_xor(pt, ct, 114, key, nonce, 1);
    FT_CHECK(memcmp(pt, sunscreen, 114) == 0, "decrypts");
    memcpy(pt, sunscreen, 114); /* in place */
    fgl_chacha20_xor(pt, pt, 114, key, nonce, 1);
    FT_CHECK(memcmp(pt, ct, 114) == 0, "in place");
}

/* Appendix A.1: the block function (the keystream of one block) */
static void test_chacha20_appendix_a1(void) {
    static const struct {
        const char *nonce;
        uint32_t counter;
        const char *out;
    } v[5] = {
        {"000000000000000000000000", 0,
         "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7"
         "da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37 6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86"},
        {"000000000000000000000000", 1,
         "9f 07 e7 be 55 51 38 7a 98 ba 97 7c 73 2d 08 0d cb 0f 29 a0 48 e3 65 69 12 c6 53 3e 32 ee 7a ed"
         "29 b7 21 76 9c e6 4e 43 d5 71 33 b0 74 d8 39 d5 31 ed 1f 28 51 0a fb 45 ac e1 0a 1f 4b 79 4d 6f"},
        {"000000000000000000000000", 1,
         "3a eb 52 24 ec f8 49 92 9b 9d 82 8d b1 ce d4 dd 83 20 25 e8 01 8b 81 60 b8 22 84 f3 c9 49 aa 5a"
         "8e ca 00 bb b4 a7 3b da d1 92 b5 c4 2f 73 f2 fd 4e 27 36 44 c8 b3 61 25 a6 4a dd eb 00 6c 13 a0"},
        {"000000000000000000000000", 2,
         "72 d5 4d fb f1 2e c4 4b 36 26 92 df 94 13 7f 32 8f ea 8d a7 39 90 26 5e c1 bb be a1 ae 9a f0 ca"
         "13 b2 5a a2 6c b4 a6 48 cb 9b 9d 1b e6 5b 2c 09 24 a6 6c 54 d5 45 ec 1b 73 74 f4 87 2e 99 f0 96"},
        {"000000000000000000000002", 0,
         "c2 c6 4d 37 8c d5 36 37 4a e2 04 b9 ef 93 3f cd 1a 8b 22 88 b3 df a4 96 72 ab 76 5b 54 ee 27 c7"
         "8a 97 0e 0e 95 5c 14 f3 a8 8e 74 1b 97 c2 86 f7 5f 8f c2 99 e8 14 83 62 fa 19 8a 39 53 1b ed 6d"}};
    int i;
    for (i = 0; i < 5; i++) {
        unsigned char key[32] = {0}, nonce[12], out[64];
        /* the keys: all zero; the last byte 01 (vector 3); the second byte ff (vector 4) */
        if (i == 2) key[31] = 1;
        if (i == 3) key[1] = 0xff;
        hex(nonce, v[i].nonce);
        fgl_chacha20_xor(out, NULL, 64, key, nonce, v[i].counter);
        FT_CHECK(same_hex(out, 64, v[i].out), "test vector #%d", i + 1);
    }
}

/* Appendix A.2: encryption */
static void test_chacha20_appendix_a2(void) {
    unsigned char key[32] = {0}, nonce[12] = {0}, zeros[64] = {0}, out[375];
    fgl_chacha20_xor(out, zeros, 64, key, nonce, 0);
    FT_CHECK(same_hex(out, 64,
                      "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7"
                      "da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37 6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65"
                      "86"),
             "test vector #1");
    FT_CHECK(sizeof ietf - 1 == 375, "the IETF text is 375 bytes (%d)", (int)sizeof ietf - 1);
    key[31] = 1;
    nonce[11] = 2;
    fgl_chacha20_xor(out, (const unsigned char *)ietf, 375, key, nonce, 1);
    FT_CHECK(same_hex(out, 375,
                      "a3 fb f0 7d f3 fa 2f de 4f 37 6c a2 3e 82 73 70 41 60 5d 9f 4f 4f 57 bd 8c ff 2c 1d 4b 79 55 ec"
                      "2a 97 94 8b d3 72 29 15 c8 f3 d3 37 f7 d3 70 05 0e 9e 96 d6 47 b7 c3 9f 56 e0 31 ca 5e b6 25 0d"
                      "40 42 e0 27 85 ec ec fa 4b 4b b5 e8 ea d0 44 0e 20 b6 e8 db 09 d8 81 a7 c6 13 2f 42 0e 52 79 50"
                      "42 bd fa 77 73 d8 a9 05 14 47 b3 29 1c e1 41 1c 68 04 65 55 2a a6 c4 05 b7 76 4d 5e 87 be a8 5a"
                      "d0 0f 84 49 ed 8f 72 d0 d6 62 ab 05 26 91 ca 66 42 4b c8 6d 2d f8 0e a4 1f 43 ab f9 37 d3 25 9d"
                      "c4 b2 d0 df b4 8a 6c 91 39 dd d7 f7 69 66 e9 28 e6 35 55 3b a7 6c 5c 87 9d 7b 35 d4 9e b2 e6 2b"
                      "08 71 cd ac 63 89 39 e2 5e 8a 1e 0e f9 d5 28 0f a8 ca 32 8b 35 1c 3c 76 59 89 cb cf 3d aa 8b 6c"
                      "cc 3a af 9f 39 79 c9 2b 37 20 fc 88 dc 95 ed 84 a1 be 05 9c 64 99 b9 fd a2 36 e7 e8 18 b0 4b 0b"
                      "c3 9c 1e 87 6b 19 3b fe 55 69 75 3f 88 12 8c c0 8a aa 9b 63 d1 a1 6f 80 ef 25 54 d7 18 9c 41 1f"
                      "58 69 ca 52 c5 b8 3f a3 6f f2 16 b9 c1 d3 00 62 be bc fd 2d c5 bc e0 91 19 34 fd a7 9a 86 f6 e6"
                      "98 ce d7 59 c3 ff 9b 64 77 33 8f 3d a4 f9 cd 85 14 ea 99 82 cc af b3 41 b2 38 4d d9 02 f3 d1 ab"
                      "7a c6 1d d2 9c 6f 21 ba 5b 86 2f 37 30 e3 7c fd c4 fd 80 6c 22 f2 21"),
             "test vector #2");
    hex(key, key_1c92);
    FT_CHECK(sizeof jabberwocky - 1 == 127, "the poem is 127 bytes");
    fgl_chacha20_xor(out, (const unsigned char *)jabberwocky, 127, key, nonce, 42);
    FT_CHECK(same_hex(out, 127,
                      "62 e6 34 7f 95 ed 87 a4 5f fa e7 42 6f 27 a1 df 5f b6 91 10 04 4c 0d 73 11 8e ff a9 5b 01 e5 cf"
                      "16 6d 3d f2 d7 21 ca f9 b2 1e 5f b1 4c 61 68 71 fd 84 c5 4f 9d 65 b2 83 19 6c 7f e4 f6 05 53 eb"
                      "f3 9c 64 02 c4 22 34 e3 2a 35 6b 3e 76 43 12 a6 1a 55 32 05 57 16 ea d6 96 25 68 f8 7d 3f 3f 77"
                      "04 c6 a8 d1 bc d1 bf 4d 50 d6 15 4b 6d a7 31 b1 87 b5 8d fd 72 8a fa 36 75 7a 79 7a c1 88 d1"),
             "test vector #3");
}

/* Section 2.6.2 and Appendix A.4: the Poly1305 key is the first 32 bytes of
 * block 0, which is also fgl_kdf with the nonce's words as (label, a, b). */
static void test_poly1305_key_generation(void) {
    static const struct {
        const char *key, *nonce, *otk;
    } v[4] = {
        {"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f", "000000000001020304050607",
         "8a d5 a0 8b 90 5f 81 cc 81 50 40 27 4a b2 94 71 a8 33 b6 37 e3 fd 0d a5 08 db b8 e2 fd d1 a6 46"},
        {"0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
         "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7"},
        {"0000000000000000000000000000000000000000000000000000000000000001", "000000000000000000000002",
         "ec fa 25 4f 84 5f 64 74 73 d3 cb 14 0d a9 e8 76 06 cb 33 06 6c 44 7b 87 bc 26 66 dd e3 fb b7 39"},
        {"1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0", "000000000000000000000002",
         "96 5e 3b c6 f9 ec 7e d9 56 08 08 f4 d2 29 f9 4b 13 7f f2 75 ca 9b 3f cb dd 59 de aa d2 33 10 ae"}};
    int i;
    for (i = 0; i < 4; i++) {
        unsigned char key[32], nonce[12], out[32];
        hex(key, v[i].key);
        hex(nonce, v[i].nonce);
        fgl_chacha20_xor(out, NULL, 32, key, nonce, 0);
        FT_CHECK(same_hex(out, 32, v[i].otk), "%s %d: the keystream", i ? "A.4 #" : "2.6.2", i);
        fgl_kdf(out, key, le32(nonce), le32(nonce + 4), le32(nonce + 8));
        FT_CHECK(same_hex(out, 32, v[i].otk), "%s %d: fgl_kdf", i ? "A.4 #" : "2.6.2", i);
    }
}

/* --- Poly1305 -------------------------------------------------------------------------- */

static void test_poly1305_2_5_2(void) {
    unsigned char key[32], tag[16];
    hex(key, "85:d6:be:78:57:55:6d:33:7f:44:52:fe:42:d5:06:a8:01:03:80:8a:fb:0d:b2:fd:4a:bf:f6:af:41:49:f5:1b");
    fgl_poly1305(tag, (const unsigned char *)"Cryptographic Forum Research Group", 34, key);
    FT_CHECK(same_hex(tag, 16, "a8:06:1d:c1:30:51:36:c6:c2:2b:8b:af:0c:01:27:a9"), "the tag");
}

/* Appendix A.3: #1-#4, and the edge cases #5-#11 of a partial reduction */
static void test_poly1305_appendix_a3(void) {
    static const struct {
        const char *key, *msg, *tag;
    } v[7] = {
        /* #5: the partially reduced result is not fully reduced */
        {"02000000000000000000000000000000 00000000000000000000000000000000", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
         "03000000000000000000000000000000"},
        /* #6: h + s overflows 2^128 */
        {"02000000000000000000000000000000 FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "02000000000000000000000000000000",
         "03000000000000000000000000000000"},
        /* #7: a data limb all ones and a carry from the limb below */
        {"01000000000000000000000000000000 00000000000000000000000000000000",
         "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF F0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF 11000000000000000000000000000000",
         "05000000000000000000000000000000"},
        /* #8: the result is exactly 2^130 - 5 */
        {"01000000000000000000000000000000 00000000000000000000000000000000",
         "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF FBFEFEFEFEFEFEFEFEFEFEFEFEFEFEFE 01010101010101010101010101010101",
         "00000000000000000000000000000000"},
        /* #9: exactly 2^130 - 6 */
        {"02000000000000000000000000000000 00000000000000000000000000000000", "FDFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
         "FAFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"},
        /* #10: 5 H + L reduction with a 131-bit intermediate result */
        {"01000000000000000400000000000000 00000000000000000000000000000000",
         "E33594D7505E43B90000000000000000 3394D7505E4379CD0100000000000000 00000000000000000000000000000000"
         "01000000000000000000000000000000",
         "14000000000000005500000000000000"},
        /* #11: ... and a 131-bit final result */
        {"01000000000000000400000000000000 00000000000000000000000000000000",
         "E33594D7505E43B90000000000000000 3394D7505E4379CD0100000000000000 00000000000000000000000000000000",
         "13000000000000000000000000000000"}};
    unsigned char key[32] = {0}, msg[64] = {0}, tag[16];
    size_t n;
    int i;
    fgl_poly1305(tag, msg, 64, key);
    FT_CHECK(same_hex(tag, 16, "00000000000000000000000000000000"), "#1");
    hex(key + 16, "36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e");
    fgl_poly1305(tag, (const unsigned char *)ietf, 375, key);
    FT_CHECK(same_hex(tag, 16, "36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e"), "#2 (r = 0: the tag is s)");
    memset(key, 0, 32);
    hex(key, "36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e");
    fgl_poly1305(tag, (const unsigned char *)ietf, 375, key);
    FT_CHECK(same_hex(tag, 16, "f3 47 7e 7c d9 54 17 af 89 a6 b8 79 4c 31 0c f0"), "#3");
    hex(key, key_1c92);
    fgl_poly1305(tag, (const unsigned char *)jabberwocky, 127, key);
    FT_CHECK(same_hex(tag, 16, "45 41 66 9a 7e aa ee 61 e7 08 dc 7c bc c5 eb 62"), "#4");
    for (i = 0; i < 7; i++) {
        hex(key, v[i].key);
        n = hex(msg, v[i].msg);
        fgl_poly1305(tag, msg, n, key);
        FT_CHECK(same_hex(tag, 16, v[i].tag), "#%d", i + 5);
    }
}

/* --- ChaCha20-Poly1305 ----------------------------------------------------------------- */

static const char *aead_2_8_2_ct = "d3 1a 8d 34 64 8e 60 db 7b 86 af bc 53 ef 7e c2 "
                                   "a4 ad ed 51 29 6e 08 fe a9 e2 b5 a7 36 ee 62 d6 "
                                   "3d be a4 5e 8c a9 67 12 82 fa fb 69 da 92 72 8b "
                                   "1a 71 de 0a 9e 06 0b 29 05 d6 a5 b6 7e cd 3b 36 "
                                   "92 dd bd 7f 2d 77 8b 8c 98 03 ae e3 28 09 1b 58 "
                                   "fa b3 24 e4 fa d6 75 94 55 85 80 8b 48 31 d7 bc "
                                   "3f f4 de f0 8e 4b 7a 9d e5 76 d2 65 86 ce c6 4b "
                                   "61 16";

static void test_aead_2_8_2(void) {
    unsigned char key[32], nonce[12], aad[12], ct[114], tag[16], pt[114];
    hex(key, key_80_9f);
    hex(nonce, "07 00 00 00 40 41 42 43 44 45 46 47"); /* the fixed part, then the IV */
    hex(aad, "50 51 52 53 c0 c1 c2 c3 c4 c5 c6 c7");
    fgl_aead_seal(ct, tag, (const unsigned char *)sunscreen, 114, aad, 12, key, nonce);
    FT_CHECK(same_hex(ct, 114, aead_2_8_2_ct), "the ciphertext");
    FT_CHECK(same_hex(tag, 16, "1a:e1:0b:59:4f:09:e2:6a:7e:90:2e:cb:d0:60:06:91"), "the tag");
    FT_CHECK(fgl_aead_open(pt, ct, 114, tag, aad, 12, key, nonce) == 0, "opens");
    FT_CHECK(memcmp(pt, sunscreen, 114) == 0, "the plaintext");
}

static const char *a5_ct = "64 a0 86 15 75 86 1a f4 60 f0 62 c7 9b e6 43 bd "
                           "5e 80 5c fd 34 5c f3 89 f1 08 67 0a c7 6c 8c b2 "
                           "4c 6c fc 18 75 5d 43 ee a0 9e e9 4e 38 2d 26 b0 "
                           "bd b7 b7 3c 32 1b 01 00 d4 f0 3b 7f 35 58 94 cf "
                           "33 2f 83 0e 71 0b 97 ce 98 c8 a8 4a bd 0b 94 81 "
                           "14 ad 17 6e 00 8d 33 bd 60 f9 82 b1 ff 37 c8 55 "
                           "97 97 a0 6e f4 f0 ef 61 c1 86 32 4e 2b 35 06 38 "
                           "36 06 90 7b 6a 7c 02 b0 f9 f6 15 7b 53 c8 67 e4 "
                           "b9 16 6c 76 7b 80 4d 46 a5 9b 52 16 cd e7 a4 e9 "
                           "90 40 c5 a4 04 33 22 5e e2 82 a1 b0 a0 6c 52 3e "
                           "af 45 34 d7 f8 3f a1 15 5b 00 47 71 8c bc 54 6a "
                           "0d 07 2b 04 b3 56 4e ea 1b 42 22 73 f5 48 27 1a "
                           "0b b2 31 60 53 fa 76 99 19 55 eb d6 31 59 43 4e "
                           "ce bb 4e 46 6d ae 5a 10 73 a6 72 76 27 09 7a 10 "
                           "49 e6 17 d9 1d 36 10 94 fa 68 f0 ff 77 98 71 30 "
                           "30 5b ea ba 2e da 04 df 99 7b 71 4d 6c 6f 2c 29 "
                           "a6 ad 5c b4 02 2b 02 70 9b";
static const char a5_pt[] = "Internet-Drafts are draft documents valid for a maximum of six months and may be updated, "
                            "replaced, or obsoleted by other documents at any time. It is inappropriate to use "
                            "Internet-Drafts as reference material or to cite them other than as /\xe2\x80\x9c"
                            "work in progress./\xe2\x80\x9d";

/* Appendix A.5: decryption, and what a wrong tag, ciphertext, AAD, nonce
 * or key does */
static void test_aead_appendix_a5_and_tampering(void) {
    unsigned char key[32], nonce[12], aad[12], ct[265], tag[16], pt[265], bad[265];
    int i, refused = 1, zeroed = 1;
    FT_CHECK(hex(ct, a5_ct) == 265 && sizeof a5_pt - 1 == 265, "265 bytes");
    hex(key, key_1c92);
    hex(nonce, "00 00 00 00 01 02 03 04 05 06 07 08");
    hex(aad, "f3 33 88 86 00 00 00 00 00 00 4e 91");
    hex(tag, "ee ad 9d 67 89 0c bb 22 39 23 36 fe a1 85 1f 38");
    FT_CHECK(fgl_aead_open(pt, ct, 265, tag, aad, 12, key, nonce) == 0, "the tag is authentic");
    FT_CHECK(memcmp(pt, a5_pt, 265) == 0, "the plaintext");
    for (i = 0; i < 265 * 8; i += 7) { /* one bit of the ciphertext flipped */
        memcpy(bad, ct, 265);
        bad[i / 8] ^= (unsigned char)(1 << (i % 8));
        memset(pt, 0xaa, 265);
        refused &= fgl_aead_open(pt, bad, 265, tag, aad, 12, key, nonce) == -1;
        zeroed &= pt[0] == 0 && pt[264] == 0 && pt[100] == 0;
    }
    FT_CHECK(refused, "a flipped ciphertext bit is refused");
    FT_CHECK(zeroed, "and the plaintext zeroed");
    for (i = 0; i < 128; i++) {
        unsigned char t[16];
        memcpy(t, tag, 16);
        t[i / 8] ^= (unsigned char)(1 << (i % 8));
        FT_CHECK(fgl_aead_open(pt, ct, 265, t, aad, 12, key, nonce) == -1, "tag bit %d flipped", i);
    }
    for (i = 0; i < 12 * 8; i++) {
        unsigned char a[12];
        memcpy(a, aad, 12);
        a[i / 8] ^= (unsigned char)(1 << (i % 8));
        FT_CHECK(fgl_aead_open(pt, ct, 265, tag, a, 12, key, nonce) == -1, "aad bit %d flipped", i);
    }
    FT_CHECK(fgl_aead_open(pt, ct, 265, tag, aad, 11, key, nonce) == -1, "a shorter aad");
    FT_CHECK(fgl_aead_open(pt, ct, 264, tag, aad, 12, key, nonce) == -1, "a shorter ciphertext");
    nonce[11] ^= 1;
    FT_CHECK(fgl_aead_open(pt, ct, 265, tag, aad, 12, key, nonce) == -1, "another nonce");
    nonce[11] ^= 1;
    key[0] ^= 1;
    FT_CHECK(fgl_aead_open(pt, ct, 265, tag, aad, 12, key, nonce) == -1, "another key");
}

/* Seal then open over lengths around the block and lane sizes, in place
 * and not, with and without AAD; empty messages. */
static void test_aead_roundtrip_lengths(void) {
    static const size_t lens[] = {0, 1, 15, 16, 17, 63, 64, 65, 511, 512, 513, 1000, 4096 + 7};
    fgl_rng r;
    unsigned char key[32], nonce[12], aad[40], tag[16], t2[16];
    unsigned char *pt = (unsigned char *)malloc(4200), *ct = (unsigned char *)malloc(4200);
    unsigned char *back = (unsigned char *)malloc(4200);
    size_t i;
    fgl_rng_init(&r, 8439, 0);
    for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i], na = i % 3 == 0 ? 0 : 1 + i * 3;
        random_bytes(&r, key, 32);
        random_bytes(&r, nonce, 12);
        random_bytes(&r, aad, sizeof aad);
        random_bytes(&r, pt, n);
        fgl_aead_seal(ct, tag, pt, n, aad, na, key, nonce);
        FT_CHECK(fgl_aead_open(back, ct, n, tag, aad, na, key, nonce) == 0 && memcmp(back, pt, n) == 0,
                 "length %d, aad %d", (int)n, (int)na);
        memcpy(back, pt, n); /* in place */
        fgl_aead_seal(back, t2, back, n, aad, na, key, nonce);
        FT_CHECK(memcmp(back, ct, n) == 0 && memcmp(t2, tag, 16) == 0, "sealed in place, length %d", (int)n);
        FT_CHECK(fgl_aead_open(back, back, n, t2, aad, na, key, nonce) == 0 && memcmp(back, pt, n) == 0,
                 "opened in place, length %d", (int)n);
        if (n) {
            ct[n / 2] ^= 0x40;
            FT_CHECK(fgl_aead_open(back, ct, n, tag, aad, na, key, nonce) == -1, "tampered, length %d", (int)n);
        }
    }
    fgl_aead_seal(NULL, tag, NULL, 0, NULL, 0, key, nonce); /* nothing at all: a tag of nothing */
    FT_CHECK(fgl_aead_open(NULL, NULL, 0, tag, NULL, 0, key, nonce) == 0, "an empty message opens");
    tag[3] ^= 1;
    FT_CHECK(fgl_aead_open(NULL, NULL, 0, tag, NULL, 0, key, nonce) == -1, "an empty message with a bad tag");
    free(pt);
    free(ct);
    free(back);
}

/* --- the keystream as words ---------------------------------------------------------- */

/* fgl_chacha20_words is fgl_chacha20_xor's keystream read as little-endian
 * words, for lengths across block and lane boundaries, odd ones included,
 * counters near 2^32 too; a long keystream is the concatenation of its
 * blocks made one call each. */
static void test_chacha20_words_match_bytes(void) {
    static const size_t lens[] = {0, 1, 3, 15, 16, 17, 31, 33, 127, 128, 129, 255, 256, 257, 1001, 4096, 5000};
    static const uint32_t counters[] = {0, 1, 7, 0xfffffff0u, 0xffffffffu};
    fgl_rng r;
    unsigned char key[32], nonce[12], *b = (unsigned char *)malloc(4 * 5000 + 64);
    uint32_t *w = (uint32_t *)malloc(4 * 5000 + 64);
    size_t i, j, k;
    int ok = 1, concat = 1;
    fgl_rng_init(&r, 20, 0);
    for (i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (j = 0; j < sizeof counters / sizeof counters[0]; j++) {
            size_t n = lens[i];
            random_bytes(&r, key, 32);
            random_bytes(&r, nonce, 12);
            w[n] = 0x5a5a5a5au; /* a guard past the end */
            fgl_chacha20_words(w, n, key, nonce, counters[j]);
            fgl_chacha20_xor(b, NULL, 4 * n, key, nonce, counters[j]);
            for (k = 0; k < n; k++) ok &= w[k] == le32(b + 4 * k);
            ok &= w[n] == 0x5a5a5a5au;
            if (n >= 256) { /* block by block, one call each */
                for (k = 0; k < (4 * n + 63) / 64; k++)
                    fgl_chacha20_xor(b + 64 * k, NULL, 64, key, nonce, counters[j] + (uint32_t)k);
                for (k = 0; k < n; k++) concat &= w[k] == le32(b + 4 * k);
            }
        }
    FT_CHECK(ok, "words = bytes read little-endian");
    FT_CHECK(concat, "a long keystream = its blocks one at a time");
    /* bytes: odd lengths over odd offsets of a long stream */
    random_bytes(&r, key, 32);
    fgl_chacha20_xor(b, NULL, 4000, key, nonce, 3);
    for (i = 1; i < 4000; i += 397) {
        unsigned char part[4000];
        fgl_chacha20_xor(part, NULL, i, key, nonce, 3);
        FT_CHECK(memcmp(part, b, i) == 0, "a prefix of %d bytes", (int)i);
    }
    free(b);
    free(w);
}

/* --- Shamir over GF(2^61 - 1) ---------------------------------------------------------- */

#define P61 ((((uint64_t)1) << 61) - 1)

/* a b mod p by doubling and adding (a, b < p): the slow reference */
static uint64_t slow_mul(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    int i;
    for (i = 60; i >= 0; i--) {
        r = r * 2 % P61; /* r < 2^61: no overflow */
        if (b >> i & 1) r = (r + a) % P61;
    }
    return r;
}

static void test_gf61_arithmetic(void) {
    static const uint64_t edge[] = {0, 1, 2, 3, 0xffffffffu, 0x100000000ull, P61 - 1, P61 - 2, P61 / 2, 1ull << 60};
    fgl_rng r;
    int i, j, mul_ok = 1, inv_ok = 1;
    fgl_rng_init(&r, 61, 0);
    for (i = 0; i < 10; i++)
        for (j = 0; j < 10; j++) mul_ok &= fgl__gf61_mul(edge[i], edge[j]) == slow_mul(edge[i], edge[j]);
    for (i = 0; i < 20000; i++) {
        uint64_t a = fgl_rng_u64(&r) % P61, b = fgl_rng_u64(&r) % P61;
        mul_ok &= fgl__gf61_mul(a, b) == slow_mul(a, b);
        if (i < 2000 && a) inv_ok &= fgl__gf61_mul(a, fgl__gf61_inv(a)) == 1;
    }
    FT_CHECK(mul_ok, "products match the reference");
    FT_CHECK(inv_ok, "a / a = 1");
    FT_CHECK(fgl__gf61_inv(P61 - 1) == P61 - 1, "(-1)^-1 = -1");
}

/* k distinct indices of 0..n-1 in random order */
static void pick(fgl_rng *r, int *idx, int k, int n) {
    int all[64], i;
    for (i = 0; i < n; i++) all[i] = i;
    for (i = 0; i < k; i++) {
        int j = i + (int)(fgl_rng_u64(r) % (uint64_t)(n - i)), t = all[i];
        all[i] = all[j];
        all[j] = t;
        idx[i] = all[i];
    }
}

/* shares idx[0..k-1] of the n at all, with their xs, combined as if t = k */
static int combine_subset(unsigned char secret[32], const unsigned char *all, const int *idx, int k) {
    unsigned char sub[64 * FGL_SHARE_BYTES];
    uint32_t xs[64];
    int i;
    for (i = 0; i < k; i++) {
        memcpy(sub + (size_t)i * FGL_SHARE_BYTES, all + (size_t)idx[i] * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
        xs[i] = (uint32_t)idx[i] + 1;
    }
    return fgl_shamir_combine(secret, sub, xs, k);
}

static void test_shamir_reconstructs(void) {
    static const int ts[] = {1, 2, 3, 7};
    fgl_rng r;
    unsigned char secret[32], coins[32], got[32], shares[20 * FGL_SHARE_BYTES];
    int ti, n, rep, idx[20], ok1 = 1, ok2 = 1, fewer = 1, cases = 0;
    fgl_rng_init(&r, 1979, 0);
    for (ti = 0; ti < 4; ti++)
        for (n = ts[ti]; n <= 20; n++)
            for (rep = 0; rep < 3; rep++) {
                int t = ts[ti];
                random_bytes(&r, secret, 32);
                if (rep == 1) memset(secret, 0xff, 32); /* the largest chunks */
                if (rep == 2) memset(secret, 0, 32);
                random_bytes(&r, coins, 32);
                FT_CHECK(fgl_shamir_split(shares, secret, t, n, coins) == FGL_OK, "split t %d n %d", t, n);
                pick(&r, idx, t, n);
                ok1 &= combine_subset(got, shares, idx, t) == FGL_OK && memcmp(got, secret, 32) == 0;
                pick(&r, idx, t, n); /* another subset (in another order) */
                ok2 &= combine_subset(got, shares, idx, t) == FGL_OK && memcmp(got, secret, 32) == 0;
                if (t > 1) { /* t - 1 shares, combined as if t were t - 1: refused or another secret */
                    int rc = combine_subset(got, shares, idx, t - 1);
                    fewer &= rc != FGL_OK || memcmp(got, secret, 32) != 0;
                }
                cases++;
            }
    FT_CHECK(ok1, "t shares give the secret");
    FT_CHECK(ok2, "another t give it too");
    FT_CHECK(fewer, "t - 1 shares do not");
    FT_CHECK(cases == 3 * (20 + 19 + 18 + 14), "%d cases", cases);
}

static void test_shamir_refuses(void) {
    fgl_rng r;
    unsigned char secret[32], coins[32], got[32], shares[10 * FGL_SHARE_BYTES], sub[3 * FGL_SHARE_BYTES];
    uint32_t xs[3] = {1, 2, 3};
    int i, detected = 0;
    fgl_rng_init(&r, 7, 7);
    random_bytes(&r, secret, 32);
    random_bytes(&r, coins, 32);
    FT_CHECK(fgl_shamir_split(shares, secret, 4, 3, coins) == FGL_ERR_ARG, "t > n");
    FT_CHECK(fgl_shamir_split(shares, secret, 0, 3, coins) == FGL_ERR_ARG, "t = 0");
    FT_CHECK(fgl_shamir_split(shares, secret, -1, 3, coins) == FGL_ERR_ARG, "t < 0");
    FT_CHECK(fgl_shamir_split(shares, secret, 3, 10, coins) == FGL_OK, "3 of 10");
    memcpy(sub, shares, sizeof sub);
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_OK && memcmp(got, secret, 32) == 0, "shares 1, 2, 3");
    xs[2] = 1;
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG, "a repeated x");
    FT_CHECK(got[0] == 0 && got[31] == 0, "the secret zeroed");
    xs[2] = 0;
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG, "x = 0");
    xs[2] = 3;
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 0) == FGL_ERR_ARG, "t = 0");
    memset(sub + 2 * FGL_SHARE_BYTES + 8, 0xff, 8); /* a value >= p */
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG, "a value that is not a field element");
    /* one value of one share replaced by a random field element moves one
     * chunk by a random amount: within its width again with probability
     * 2^-5 (2^-29 for the last), so most are caught (a deliberate small
     * change is not: the check is no authentication) */
    for (i = 0; i < 64; i++) {
        memcpy(sub, shares, sizeof sub);
        put_le64(sub + FGL_SHARE_BYTES + 8 * (i % 5), fgl_rng_u64(&r) % P61);
        detected += fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG;
    }
    FT_CHECK(detected >= 54, "a random share value is detected %d times of 64", detected);
    /* every chunk wrong (probability 2^-49 to pass): a share at the wrong x,
     * a share of another split */
    memcpy(sub, shares, sizeof sub);
    xs[2] = 4;
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG, "share 3 at x = 4");
    xs[2] = 3;
    coins[0] ^= 1;
    FT_CHECK(fgl_shamir_split(shares, secret, 3, 10, coins) == FGL_OK, "another split");
    memcpy(sub + 2 * FGL_SHARE_BYTES, shares + 2 * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
    FT_CHECK(fgl_shamir_combine(got, sub, xs, 3) == FGL_ERR_ARG, "share 3 of another split");
}

/* The coins decide the shares: the same coins, the same shares; others,
 * others (every share, when t > 1). */
static void test_shamir_coins(void) {
    unsigned char secret[32] = {1, 2, 3}, c1[32] = {9}, c2[32] = {10}, s1[5 * FGL_SHARE_BYTES];
    unsigned char s2[5 * FGL_SHARE_BYTES], s3[5 * FGL_SHARE_BYTES];
    int i, differ = 1;
    fgl_shamir_split(s1, secret, 3, 5, c1);
    fgl_shamir_split(s2, secret, 3, 5, c1);
    fgl_shamir_split(s3, secret, 3, 5, c2);
    FT_CHECK(memcmp(s1, s2, sizeof s1) == 0, "same coins, same shares");
    for (i = 0; i < 5; i++) differ &= memcmp(s1 + i * FGL_SHARE_BYTES, s3 + i * FGL_SHARE_BYTES, FGL_SHARE_BYTES) != 0;
    FT_CHECK(differ, "other coins, other shares");
    fgl_shamir_split(s1, secret, 1, 5, c1); /* t = 1: every share is the secret's chunks */
    FT_CHECK(s1[0] == 1 && s1[1] == 2 && s1[2] == 3 && s1[4 * FGL_SHARE_BYTES] == 1, "t = 1 copies the secret");
}

/* --- entropy -------------------------------------------------------------------------- */

static void test_os_entropy(void) {
    unsigned char a[32], b[32], *big = (unsigned char *)malloc(1 << 20);
    long count[256] = {0};
    double chi2 = 0;
    fgl_error err;
    size_t i;
    int rc;
    FT_CHECK(fgl_os_entropy(a, 32, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(fgl_os_entropy(b, 32, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(memcmp(a, b, 32) != 0, "two calls differ");
    FT_CHECK(fgl_os_entropy(NULL, 0, &err) == FGL_OK, "nothing asked, nothing read");
    memset(big, 0, 1 << 20);
    rc = fgl_os_entropy(big, 1 << 20, &err);
    FT_CHECK(rc == FGL_OK, "1 MiB: %s", err.msg);
    for (i = 0; i < (1u << 20); i++) count[big[i]]++;
    for (i = 0; i < 256; i++) chi2 += (count[i] - 4096.0) * (count[i] - 4096.0) / 4096.0;
    /* 255 degrees of freedom: mean 255, sd 22.6; 400 is 6.4 sd out */
    FT_CHECK(chi2 < 400, "the bytes look uniform (chi-square %.1f)", chi2);
    for (i = (1u << 20) - 64, rc = 0; i < (1u << 20); i++) rc |= big[i];
    FT_CHECK(rc != 0, "filled to the end");
    free(big);
}

/* The device path refuses what is not a character device giving random
 * bytes: a regular file in /dev/urandom's place (which would hand out the
 * same bytes from offset 0 on every call: equal secrets), /dev/zero, a
 * missing path; the real device gives different bytes on every call. The
 * path is a parameter of the private reader only: fgl_os_entropy's is
 * fixed (getrandom on Linux, else /dev/urandom). */
static void test_entropy_device_checks(void) {
#ifdef FGL__ENTROPY_DEVICE
    char path[64];
    unsigned char a[32], b[32], zero[32];
    fgl_error err;
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "/tmp/fgl_test_entropy_%lu.bin", (unsigned long)time(NULL));
    if (!(f = fopen(path, "wb"))) {
        FT_CHECK(0, "cannot write %s", path);
        return;
    }
    fwrite("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1, 64, f);
    fclose(f);
    memset(&err, 0, sizeof err);
    rc = fgl__entropy_device(path, a, 32, &err);
    printf("#   a regular file: %s\n", err.msg);
    FT_CHECK(rc == FGL_ERR_IO && strstr(err.msg, "not a character device"), "a regular file refused (rc %d: %s)", rc,
             err.msg);
    remove(path);
    memset(&err, 0, sizeof err);
    rc = fgl__entropy_device("/dev/zero", a, 32, &err);
    printf("#   /dev/zero: %s\n", err.msg);
    FT_CHECK(rc == FGL_ERR_IO && strstr(err.msg, "zero bytes"), "/dev/zero refused (rc %d: %s)", rc, err.msg);
    memset(&err, 0, sizeof err);
    rc = fgl__entropy_device("/nonexistent/fgl/urandom", a, 32, &err);
    FT_CHECK(rc == FGL_ERR_IO && strstr(err.msg, "cannot be opened"), "a missing device refused (rc %d: %s)", rc,
             err.msg);
    memset(zero, 0, sizeof zero);
    FT_CHECK(fgl__entropy_device("/dev/urandom", a, 32, &err) == FGL_OK, "/dev/urandom: %s", err.msg);
    FT_CHECK(fgl__entropy_device("/dev/urandom", b, 32, &err) == FGL_OK, "/dev/urandom: %s", err.msg);
    FT_CHECK(memcmp(a, b, 32) != 0 && memcmp(a, zero, 32) != 0, "two reads of the device differ");
#else
    printf("#   no POSIX entropy device here\n");
#endif
}

/* A pair key with a public key of small order (u = 0, 1, p - 1, p, p + 1,
 * the last two non-canonical) is refused, its output zeroed: X25519 gives
 * all zeros, a "secret" anybody knows. A proper key agrees on both ends. */
static void test_pair_key_refuses_small_order(void) {
    unsigned char sk[32], sk2[32], pk[32], pk2[32], u[32], out[32], out2[32], zero[32];
    fgl_rng r;
    int i, refused = 0;
    fgl_rng_init(&r, 7, 0);
    random_bytes(&r, sk, 32);
    random_bytes(&r, sk2, 32);
    memset(zero, 0, 32);
    for (i = 0; i < 5; i++) {
        memset(u, 0, 32);
        if (i == 1) u[0] = 1;
        if (i >= 2) { /* p - 1, p, p + 1: p = 2^255 - 19 */
            memset(u, 0xff, 32);
            u[31] = 0x7f;
            u[0] = (unsigned char)(0xed - 1 + (i - 2));
        }
        memset(out, 0xaa, 32);
        refused += fgl__pair_key(out, sk, u, FGL__SA_PAIR, 1, 2) == FGL_ERR_ARG && memcmp(out, zero, 32) == 0;
    }
    FT_CHECK(refused == 5, "%d of 5 small-order keys refused", refused);
    fgl_x25519_public(pk, sk);
    fgl_x25519_public(pk2, sk2);
    FT_CHECK(fgl__pair_key(out, sk, pk2, FGL__SA_PAIR, 1, 2) == FGL_OK &&
                 fgl__pair_key(out2, sk2, pk, FGL__SA_PAIR, 2, 1) == FGL_OK && memcmp(out, out2, 32) == 0 &&
                 memcmp(out, zero, 32) != 0,
             "a proper pair agrees");
}

int main(void) {
    FT_RUN(test_x25519_rfc7748_vectors);
    FT_RUN(test_x25519_iterated);
    FT_RUN(test_x25519_diffie_hellman);
    FT_RUN(test_x25519_random_and_edges);
    FT_RUN(test_chacha20_block_2_3_2);
    FT_RUN(test_chacha20_encrypt_2_4_2);
    FT_RUN(test_chacha20_appendix_a1);
    FT_RUN(test_chacha20_appendix_a2);
    FT_RUN(test_poly1305_key_generation);
    FT_RUN(test_poly1305_2_5_2);
    FT_RUN(test_poly1305_appendix_a3);
    FT_RUN(test_aead_2_8_2);
    FT_RUN(test_aead_appendix_a5_and_tampering);
    FT_RUN(test_aead_roundtrip_lengths);
    FT_RUN(test_chacha20_words_match_bytes);
    FT_RUN(test_gf61_arithmetic);
    FT_RUN(test_shamir_reconstructs);
    FT_RUN(test_shamir_refuses);
    FT_RUN(test_shamir_coins);
    FT_RUN(test_os_entropy);
    FT_RUN(test_entropy_device_checks);
    FT_RUN(test_pair_key_refuses_small_order);
    return ft_finish();
}
