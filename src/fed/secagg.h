#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Secrets and secure aggregation                                           */
/* ------------------------------------------------------------------------ */
/* The run's secrets (fgl_secrets_config) and the secure-aggregation
 * protocol of Bonawitz et al. (2017) that fgl_secagg_config describes. A
 * round of it, for the participants U1 (increasing ids, n of them) and the
 * threshold t:
 *   1 keys     each participant draws two X25519 key pairs (c: to encrypt
 *              shares, s: to agree masks) and a self-mask seed b; up: its
 *              two public keys (64 bytes); the server relays all of them.
 *   2 shares   each splits s_sk and b t-of-n (Shamir, share k at x = k + 1)
 *              and sends peer k its two shares sealed with ChaCha20-Poly1305
 *              under KDF(X25519(c_sk, c_pk_k)); the server holds them.
 *   3 masked   each uploads its fixed-point values plus PRG(b) plus, per
 *              peer k, +PRG(m_k) if its id is lower, -PRG(m_k) if higher,
 *              m_k = KDF(X25519(s_sk, s_pk_k)) (the peer derives the same).
 *   4 reveal   the server names the survivors (uploads accepted); each
 *              survivor vouches for the list it received to every other
 *              survivor k with a tag under their pair's share key (the
 *              consistency round of Bonawitz et al.'s actively secure
 *              version; a MAC in place of their signatures, as each tag is
 *              checked by its one recipient): up n tags, down the n tags
 *              addressed to it, with the sealed shares addressed to it. A
 *              survivor reveals only if t of the survivors (itself
 *              included) vouch for the list it received: a server that
 *              tells some that client i dropped and others that it survived
 *              gets t confirmations for at most one of the two lists (t >
 *              n/2). It then opens its shares and reveals, per participant,
 *              its share of b if that one survived, of s_sk if not (never
 *              both: one list decides), and nothing at all if fewer than t
 *              survived.
 *   server     with t shares each it rebuilds the survivors' b and the
 *              others' s_sk, subtracts the survivors' self-masks and their
 *              masks with the others from the sum of the masked uploads.
 *   5 metrics  once the round is unmasked and evaluated, each survivor
 *              uploads its training loss and evaluation (accuracy, F1, AUC,
 *              Hits, each with its weight: fgl__sa_metrics_mask) in fixed
 *              point in Z / 2^64, masked, per surviving peer k, by the
 *              stream of m_k under another nonce label, +/- as in step 3;
 *              it wipes m_k after. Over the survivors the masks cancel:
 *              the server learns the round's sums (so its means) and no
 *              client's own numbers. It already holds the survivors' b, so
 *              no self-mask is added; a survivor whose metrics do not
 *              arrive leaves masks that cannot be removed, and the round's
 *              metrics are NaN (a survivor cannot be unmasked alone).
 * t is more than half of the round's n participants (fgl__secagg_check,
 * fgl__sa_threshold): with t <= n/2 a server that tells half of them that
 * client i dropped and the other half that it survived gets t shares of
 * both its s_sk and its b. A peer's public key of small order (X25519 with
 * it gives all zeros) is refused in step 2. Secrets are wiped after use
 * with fgl__crypto_wipe, which a compiler cannot drop.
 * The ring is Z / 2^32 (32-bit words, one per value, carried in a float's
 * bits), the fixed point x 2^frac_bits. It must not wrap in the SUM: with
 * n participants, a client encodes a weighted value x = (n_i / N) v only if
 * |x 2^frac_bits| <= floor((2^31 - 1) / n), so that any sum of at most n
 * such words stays in [-(2^31 - 1), 2^31 - 1] and decodes exactly as a
 * signed word. A client one of whose values (or its weight) is outside
 * that range (or not finite) withholds its whole upload: the server counts
 * it rejected and out of range (fgl_round_stats.n_out_of_range), its
 * message says which value; nothing is ever wrapped. Honest weights sum to
 * at most 1, so the bound is on the models: about 2^(31 - frac_bits) / n in
 * (n_i / N) v, 2048 / n at the default 20 bits (a lower
 * fgl_secagg_config.frac_bits widens it, at the cost of precision).
 * Every secret is fresh each round (a revealed s_sk unmasks nothing later)
 * and is held by its client only (under a transport: on the client's host;
 * nothing of it is checkpointed). The server side's state, below, is what
 * a server may see: public keys, sealed shares, masked uploads, revealed
 * shares, the sum. */

/* fgl:private */
#include "../alone.h"
/* Purposes of the secrets (the KDF's label): one stream each. */
enum {
    FGL__SECRET_DP_KEY = 0x44504b59,   /* "DPKY": the server's DP key */
    FGL__SECRET_DP_NOISE = 0x44504e53, /* "DPNS": noise, under the DP key (round, part) */
    FGL__SECRET_DP_PART = 0x44505054,  /* "DPPT": Poisson participation, under the DP key (round) */
    FGL__SECRET_SA_C = 0x53414343,     /* "SACC": a client's share-encryption key (client, round) */
    FGL__SECRET_SA_S = 0x53414353,     /* "SACS": its masking key */
    FGL__SECRET_SA_B = 0x53414342,     /* "SACB": its self-mask seed */
    FGL__SECRET_SA_COIN = 0x5341434e,  /* "SACN": the coins of its Shamir polynomials */
    FGL__SA_ENC = 0x53414545,          /* "SAEE": share-encryption key from the X25519 secret */
    FGL__SA_PAIR = 0x53415050,         /* "SAPP": pairwise mask key from the X25519 secret */
    FGL__SA_MASK = 0x53414d4b,         /* "SAMK": the nonce label of mask streams */
    FGL__SA_METRIC = 0x53414d54,       /* "SAMT": the nonce label of the metrics' mask streams */
    FGL__SA_CONFIRM = 0x53414346,      /* "SACF": the nonce label of the survivors list's tags */
    FGL__SECRET_LABEL_LEN = 0x4c424c4e,   /* "LBLN": the run label's length, first link of the key's chain */
    FGL__SECRET_LABEL_BLOCK = 0x4c424c42  /* "LBLB": a block of 8 bytes of the run label */
};

#define FGL__SA_PK 64                                 /* a participant's two public keys */
#define FGL__SA_PT (12 + 2 * FGL_SHARE_BYTES)         /* from, to, round, then the two shares */
#define FGL__SA_CT (FGL__SA_PT + 16)                  /* sealed, with its tag */
#define FGL__SA_REV FGL_SHARE_BYTES                   /* one revealed share */
#define FGL__SA_TAG 16                                /* one tag of the consistency check */

/* A client's side of one round (its host only; never checkpointed). */
struct fgl__sa_client {
    int round, n, t, me;          /* the participants, the threshold, its place among them */
    int *ids;                     /* n: the participants' ids, increasing */
    unsigned char c_sk[32], s_sk[32], self[32];
    unsigned char *pk;            /* n x 64: their public keys (c, s) */
    unsigned char *enc;           /* n x 32: the share-encryption key with each (one X25519 each, kept) */
    unsigned char *mask;          /* n x 32: the pairwise mask key with each (derived with enc, step 2) */
    unsigned char own[2 * FGL_SHARE_BYTES];   /* its own shares of its s_sk and b (it holds one too) */
    unsigned char *alive;         /* n: after its reveal, the round's survivors (kept with mask, step 5) */
};

/* The server's side of one round. */
struct fgl__sa {
    int round, n, t, ready;       /* ready: keys and shares went round, uploads may be unmasked */
    int *ids;                     /* n participants, increasing */
    unsigned char *pk;            /* n x 64 */
    unsigned char *ct;            /* n x n x CT: [a n + b] from participant a to b (a != b) */
    unsigned char *alive;         /* n: its masked upload was accepted */
    unsigned char *rev;           /* n x n x REV: [a n + b] survivor a's share about b */
    unsigned char *has_rev;       /* n: survivor a's reveals arrived */
    unsigned char *tag;           /* n x n x TAG: [a n + b] survivor a's tag of the survivors list for b */
    uint32_t *sum;                /* len + 1: the unmasked sum (values, then the weight) */
    size_t len;
    uint64_t *mw;                 /* n x FGL__SA_NM: each survivor's masked metrics (step 5) */
    unsigned char *has_mw;        /* n: they arrived */
};

/* Step 5's vector: the round's metrics as (weighted value, weight) pairs
 * (fgl__sa_metrics_mask says which), summed in Z / 2^64. */
#define FGL__SA_NM 18
#define FGL__SA_METRIC_BITS 24

FGL__PRIVATE int fgl__secret_bytes(const fgl_fed_config *cfg, unsigned char out[32], uint32_t purpose, uint32_t a,
                                   uint32_t b, fgl_error *err);
FGL__PRIVATE void fgl__add_stream(uint32_t *v, size_t n, const unsigned char key[32], int round, int sign);
FGL__PRIVATE int fgl__pair_key(unsigned char out[32], const unsigned char sk[32], const unsigned char pk[32],
                               uint32_t label, int i, int j);
FGL__PRIVATE int fgl__sa_keys(fgl_run *run, fgl_client *c, int round, int n, const int *ids,
                              unsigned char pk[FGL__SA_PK]);
FGL__PRIVATE int fgl__sa_share(fgl_run *run, fgl_client *c, const unsigned char *pks, int t, unsigned char *ct);
FGL__PRIVATE int fgl__sa_confirm(fgl_client *c, const unsigned char *alive, unsigned char *tags);
FGL__PRIVATE int fgl__sa_reveal(fgl_client *c, const unsigned char *alive, const unsigned char *tags,
                                const unsigned char *ct, unsigned char *rev);
FGL__PRIVATE int fgl__sa_metrics_mask(fgl_client *c, int round, int evaluated, uint64_t out[FGL__SA_NM]);
/* fgl:implementation */
#include "../alone.h"
static int fgl__client_error(fgl_run *run, const fgl_client *c, const char *when);

static void fgl__put_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The message of a client that withheld its upload out of the ring's range
 * (c->err.msg travels with the upload under a transport; the server counts it). */
#define FGL__SA_RANGE_MSG "secure aggregation: out of the ring's range"

static int fgl__sa_out_of_range(const fgl_client *c) {
    return !c->err.code && strncmp(c->err.msg, FGL__SA_RANGE_MSG, sizeof FGL__SA_RANGE_MSG - 1) == 0;
}

static uint32_t fgl__get_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The key of a run's secrets under cfg->secrets.from_seed: k0 = the
 * secret seed (8 bytes, little-endian), the run seed (8) and "fgl secret
 * seed" (15, then a zero byte); then the run label (cfg->secrets.label, n
 * bytes, at most FGL_SECRETS_LABEL - 1) absorbed by a chain of the KDF,
 * each link keyed by the one before:
 *   k1 = KDF(k0, "LBLN", n, 0),  k(i+2) = KDF(k(i+1), "LBLB", w(2i), w(2i+1))
 * for the label's blocks of 8 bytes i = 0 .. ceil(n / 8) - 1 (the last
 * padded with zeros; w the little-endian 32-bit words). The KDF is a PRF
 * (ChaCha20 keyed by the chain over the nonce), and the inputs are
 * prefix-free (the length comes first, so two labels differ in a link
 * the chain reaches), so the cascade is a PRF of the label keyed by k0
 * (Bellare, Canetti, Krawczyk 1996): distinct labels give unrelated keys,
 * and nothing short of k0 (S and the run seed) gives any. The labels of the
 * links ("LBLN", "LBLB") are none of the purposes above. */
static void fgl__secret_key(const fgl_fed_config *cfg, unsigned char k[32]) {
    const char *label = cfg->secrets.label;
    unsigned char next[32];
    uint32_t n = 0, i;
    int j;
    memset(k, 0, 32);
    for (j = 0; j < 8; j++) { /* the run seed too: runs of several model seeds draw apart */
        k[j] = (unsigned char)(cfg->secrets.seed >> (8 * j));
        k[8 + j] = (unsigned char)(cfg->seed >> (8 * j));
    }
    memcpy(k + 16, "fgl secret seed", 15);
    while (n < FGL_SECRETS_LABEL - 1 && label[n]) n++;
    fgl_kdf(next, k, FGL__SECRET_LABEL_LEN, n, 0);
    memcpy(k, next, 32);
    for (i = 0; i < n; i += 8) {
        unsigned char blk[8];
        uint32_t m = n - i < 8 ? n - i : 8;
        memset(blk, 0, sizeof blk);
        memcpy(blk, label + i, m);
        fgl_kdf(next, k, FGL__SECRET_LABEL_BLOCK, fgl__get_le32(blk), fgl__get_le32(blk + 4));
        memcpy(k, next, 32);
    }
    memset(next, 0, sizeof next);
}

/* 32 secret bytes for (purpose, a, b): from the operating system's entropy
 * (purpose, a and b only label the call), or, with cfg->secrets.from_seed,
 * the KDF of the run's key (fgl__secret_key: the secret seed, the run seed
 * and the run label): reproducible, and as secret as the secret seed. */
FGL__PRIVATE int fgl__secret_bytes(const fgl_fed_config *cfg, unsigned char out[32], uint32_t purpose, uint32_t a,
                                   uint32_t b, fgl_error *err) {
    if (cfg->secrets.from_seed) {
        unsigned char k[32];
        fgl__secret_key(cfg, k);
        fgl_kdf(out, k, purpose, a, b);
        fgl__crypto_wipe(k, sizeof k);
        return FGL_OK;
    }
    return fgl_os_entropy(out, 32, err);
}

static void fgl__nonce(unsigned char nonce[12], uint32_t a, uint32_t b, uint32_t c) {
    int i;
    for (i = 0; i < 4; i++) {
        nonce[i] = (unsigned char)(a >> (8 * i));
        nonce[4 + i] = (unsigned char)(b >> (8 * i));
        nonce[8 + i] = (unsigned char)(c >> (8 * i));
    }
}

/* n standard normal values from the ChaCha20 stream of key under the nonce
 * (label, a, b): Box-Muller on pairs of 53-bit uniforms in (0, 1). */
static void fgl__secret_normals(const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b, double *out,
                                size_t n) {
    uint32_t w[256];
    unsigned char nonce[12];
    uint32_t counter = 0;
    size_t k = 0;
    fgl__nonce(nonce, label, a, b);
    while (k < n) {
        int q;
        fgl_chacha20_words(w, 256, key, nonce, counter);
        counter += 16; /* 256 words: 16 blocks */
        for (q = 0; q < 256 && k < n; q += 4) {
            double u1 = ((double)((((uint64_t)w[q] << 32) | w[q + 1]) >> 11) + 0.5) / 9007199254740992.0,
                   u2 = ((double)((((uint64_t)w[q + 2] << 32) | w[q + 3]) >> 11) + 0.5) / 9007199254740992.0;
            double r = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
            out[k++] = r * cos(th);
            if (k < n) out[k++] = r * sin(th);
        }
    }    fgl__crypto_wipe(w, sizeof w); /* the noise's words */
}

/* v[k] += sign x the k-th word of the mask stream of key in round r. */
FGL__PRIVATE void fgl__add_stream(uint32_t *v, size_t n, const unsigned char key[32], int round, int sign) {
    uint32_t w[1024];
    unsigned char nonce[12];
    uint32_t counter = 0;
    size_t k = 0;
    fgl__nonce(nonce, FGL__SA_MASK, (uint32_t)round, 0);
    while (k < n) {
        size_t q, m = n - k < 1024 ? n - k : 1024;
        fgl_chacha20_words(w, m, key, nonce, counter);
        counter += 64; /* 1024 words: 64 blocks */
        if (sign > 0)
            for (q = 0; q < m; q++) v[k + q] += w[q];
        else
            for (q = 0; q < m; q++) v[k + q] -= w[q];
        k += m;
    }    fgl__crypto_wipe(w, sizeof w); /* the mask's words */
}

/* A key both ends of a pair derive from their X25519 secret (i < j).
 * FGL_ERR_ARG (out zeroed) when that secret is all zeros: pk is of small
 * order, so the "shared" key would be one anybody knows (RFC 7748, section
 * 6.1); the caller refuses the peer. The test reads every byte. */
FGL__PRIVATE int fgl__pair_key(unsigned char out[32], const unsigned char sk[32], const unsigned char pk[32],
                               uint32_t label, int i, int j) {
    unsigned char shared[32], any = 0;
    int k;
    fgl_x25519(shared, sk, pk);
    for (k = 0; k < 32; k++) any |= shared[k];
    if (!any) {
        fgl__crypto_wipe(out, 32);
        return FGL_ERR_ARG;
    }
    fgl_kdf(out, shared, label, (uint32_t)(i < j ? i : j), (uint32_t)(i < j ? j : i));
    fgl__crypto_wipe(shared, sizeof shared);
    return FGL_OK;
}

static void fgl__sa_client_free(fgl_client *c) {
    struct fgl__sa_client *q = c->sa;
    if (!q) return;
    FGL_FREE(q->ids);
    FGL_FREE(q->pk);
    if (q->enc) fgl__crypto_wipe(q->enc, (size_t)q->n * 32);
    if (q->mask) fgl__crypto_wipe(q->mask, (size_t)q->n * 32);
    FGL_FREE(q->enc);
    FGL_FREE(q->mask);
    FGL_FREE(q->alive);
    fgl__crypto_wipe(q, sizeof *q); /* the round's secrets go (keys, self-mask seed, own shares) */
    FGL_FREE(q);
    c->sa = NULL;
}

static void fgl__sa_free(struct fgl__sa *sa) {
    if (!sa) return;
    FGL_FREE(sa->ids);
    FGL_FREE(sa->pk);
    FGL_FREE(sa->ct);
    FGL_FREE(sa->alive);
    if (sa->rev) fgl__crypto_wipe(sa->rev, (size_t)sa->n * sa->n * FGL__SA_REV); /* revealed shares */
    FGL_FREE(sa->rev);
    FGL_FREE(sa->has_rev);
    FGL_FREE(sa->tag);
    FGL_FREE(sa->sum);
    FGL_FREE(sa->mw);
    FGL_FREE(sa->has_mw);
    FGL_FREE(sa);
}

/* The threshold for a round of n participants: cfg's, or a majority; never
 * n / 2 or below (see fgl__secagg_check), at least 2. A round with fewer
 * than t participants is not unmasked. */
static int fgl__sa_threshold(const fgl_fed_config *cfg, int n) {
    int t = cfg->secagg.threshold > n / 2 ? cfg->secagg.threshold : n / 2 + 1;
    return t < 2 ? 2 : t;
}

/* Secure aggregation's parameters, checked when the run is set up (its
 * plug-in's check, src/fed/plugins/secagg.h, which checks the algorithm's
 * uploads and the transport first): the fixed point, the simulated
 * dropouts, and the threshold T against the K participants of a round (the
 * clients times frac, as fgl__draw draws them): 0 (a majority of each round) or
 * K/2 < T <= K. Bonawitz et al. (2017) need t > n/2 against a server that
 * lies about who survived: with t <= n/2 it can tell one half of the
 * participants that client i dropped (they reveal shares of its masking
 * key) and the other half that it survived (they reveal shares of its
 * self-mask seed), rebuild both, and read i's upload. */
static int fgl__secagg_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    int T = c->secagg.threshold, K = FGL__MAX(1, FGL__MIN((int)(c->frac * run->n_clients + 0.5f), run->n_clients));
    if (c->secagg.frac_bits < 1 || c->secagg.frac_bits > 30 || !(c->secagg.dropout >= 0 && c->secagg.dropout < 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "secure aggregation: frac_bits %d (1..30), dropout %g ([0, 1))",
                             c->secagg.frac_bits, (double)c->secagg.dropout);
    if (T != 0 && (T < 2 || T > K))
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation: threshold %d must be 0 (a majority of each round) or in [%d, %d] "
                             "(a round has %d participants: %d clients, frac %g)",
                             T, FGL__MAX(2, K / 2 + 1), K, K, run->n_clients, (double)c->frac);
    if (T != 0 && T <= K / 2)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation: threshold %d is at most half of the %d participants a round (%d "
                             "clients, frac %g): a server that tells half of them a client dropped and the other half "
                             "it survived would rebuild both its masking key and its self-mask seed and read its upload "
                             "(Bonawitz et al. 2017 need t > n/2); use %d to %d, or 0 for a majority",
                             T, K, run->n_clients, (double)c->frac, K / 2 + 1, K);
    return FGL_OK;
}

/* --- the client's steps (where the client lives) --------------------------------- */

/* Step 1: fresh keys for the round among the n participants ids; pk out. */
FGL__PRIVATE int fgl__sa_keys(fgl_run *run, fgl_client *c, int round, int n, const int *ids,
                              unsigned char pk[FGL__SA_PK]) {
    struct fgl__sa_client *q;
    fgl_error e;
    int a, rc;
    fgl__sa_client_free(c);
    q = (struct fgl__sa_client *)fgl__zalloc(sizeof *q);
    if (!q || !(q->ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)n))) {
        FGL_FREE(q);
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    c->sa = q;
    q->round = round;
    q->n = n;
    q->me = -1;
    for (a = 0; a < n; a++) {
        q->ids[a] = ids[a];
        if (ids[a] == c->id) q->me = a;
    }
    memset(&e, 0, sizeof e);
    if (q->me < 0) return fgl_client_fail(c, FGL_ERR_ARG, "secure aggregation: not among the round's participants");
    if ((rc = fgl__secret_bytes(&run->cfg, q->c_sk, FGL__SECRET_SA_C, (uint32_t)c->id, (uint32_t)round, &e)) ||
        (rc = fgl__secret_bytes(&run->cfg, q->s_sk, FGL__SECRET_SA_S, (uint32_t)c->id, (uint32_t)round, &e)) ||
        (rc = fgl__secret_bytes(&run->cfg, q->self, FGL__SECRET_SA_B, (uint32_t)c->id, (uint32_t)round, &e)))
        return fgl_client_fail(c, rc, "secure aggregation: %s", e.msg);
    fgl_x25519_public(pk, q->c_sk);
    fgl_x25519_public(pk + 32, q->s_sk);
    return FGL_OK;
}

/* Step 2: the participants' public keys in (n x 64), threshold t; out:
 * n sealed pairs of shares (its own slot zero). */
FGL__PRIVATE int fgl__sa_share(fgl_run *run, fgl_client *c, const unsigned char *pks, int t, unsigned char *ct) {
    struct fgl__sa_client *q = c->sa;
    unsigned char coin[32], *sh = NULL, pt[FGL__SA_PT], key[32], nonce[12];
    fgl_error e;
    int a, rc;
    if (!q) return fgl_client_fail(c, FGL_ERR_ARG, "secure aggregation: shares before keys");
    memset(&e, 0, sizeof e);
    q->t = t;
    if (!(q->pk = (unsigned char *)FGL_MALLOC((size_t)q->n * FGL__SA_PK)) ||
        !(q->enc = (unsigned char *)FGL_MALLOC((size_t)q->n * 32)) ||
        !(q->mask = (unsigned char *)fgl__zalloc((size_t)q->n * 32)) ||
        !(sh = (unsigned char *)FGL_MALLOC((size_t)q->n * 2 * FGL_SHARE_BYTES))) {
        FGL_FREE(sh);
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    memcpy(q->pk, pks, (size_t)q->n * FGL__SA_PK);
    if ((rc = fgl__secret_bytes(&run->cfg, coin, FGL__SECRET_SA_COIN, (uint32_t)c->id, (uint32_t)q->round, &e)) ||
        (rc = fgl_shamir_split(sh, q->s_sk, t, q->n, coin)) ||
        (rc = fgl__secret_bytes(&run->cfg, coin, FGL__SECRET_SA_COIN + 1, (uint32_t)c->id, (uint32_t)q->round, &e)) ||
        (rc = fgl_shamir_split(sh + (size_t)q->n * FGL_SHARE_BYTES, q->self, t, q->n, coin))) {
        fgl__crypto_wipe(coin, sizeof coin);
        fgl__crypto_wipe(sh, (size_t)q->n * 2 * FGL_SHARE_BYTES);
        FGL_FREE(sh);
        return fgl_client_fail(c, rc, "secure aggregation: %s", e.msg[0] ? e.msg : "cannot share the secrets");
    }
    memcpy(q->own, sh + (size_t)q->me * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
    memcpy(q->own + FGL_SHARE_BYTES, sh + (size_t)(q->n + q->me) * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
    for (a = 0; a < q->n; a++) {
        unsigned char *out = ct + (size_t)a * FGL__SA_CT;
        if (a == q->me) {
            memset(out, 0, FGL__SA_CT);
            continue;
        }
        fgl__put_le32(pt, (uint32_t)c->id);
        fgl__put_le32(pt + 4, (uint32_t)q->ids[a]);
        fgl__put_le32(pt + 8, (uint32_t)q->round);
        memcpy(pt + 12, sh + (size_t)a * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
        memcpy(pt + 12 + FGL_SHARE_BYTES, sh + (size_t)(q->n + a) * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
        if (fgl__pair_key(key, q->c_sk, q->pk + (size_t)a * FGL__SA_PK, FGL__SA_ENC, c->id, q->ids[a]) ||
            fgl__pair_key(q->mask + (size_t)a * 32, q->s_sk, q->pk + (size_t)a * FGL__SA_PK + 32, FGL__SA_PAIR, c->id,
                          q->ids[a])) {
            rc = fgl_client_fail(c, FGL_ERR_ARG,
                                 "secure aggregation: client %d's public key is of small order (X25519 with it gives "
                                 "all zeros, a secret anybody knows): refused",
                                 q->ids[a]);
            memset(ct, 0, (size_t)q->n * FGL__SA_CT); /* no share leaves for anyone */
            break;
        }
        memcpy(q->enc + (size_t)a * 32, key, 32);
        fgl__nonce(nonce, FGL__SA_ENC, (uint32_t)q->round, (uint32_t)c->id); /* one per direction */
        fgl_aead_seal(out, out + FGL__SA_PT, pt, FGL__SA_PT, NULL, 0, key, nonce); /* (from, to, round) inside */
    }
    fgl__crypto_wipe(pt, sizeof pt);
    fgl__crypto_wipe(key, sizeof key);
    fgl__crypto_wipe(coin, sizeof coin);
    fgl__crypto_wipe(sh, (size_t)q->n * 2 * FGL_SHARE_BYTES);
    FGL_FREE(sh);
    return rc;
}

/* Step 3 (after the upload hook and the attack and DP transforms): the
 * model and weight parts become (n_i / N) theta_i and n_i / N in the ring,
 * masked. A client without the round's keys, or one of whose values is
 * outside the range that keeps the sum of the round's n participants from
 * wrapping (|x| 2^frac_bits <= floor((2^31 - 1) / n), see the top), withholds
 * its upload (no masked value leaves it unprotected; the second says why in
 * c->err.msg, and the server counts it). */
static int fgl__secagg_mask(fgl_run *run, fgl_client *c) {
    const fgl_fed_config *cfg = &run->cfg;
    const fgl_algo *a = &run->algo;
    struct fgl__sa_client *q = c->sa;
    int pm = -1, pw = -1, p, b;
    double N = 0, scale = ldexp(1.0, cfg->secagg.frac_bits), wn, lim;
    uint32_t *v;
    float *xm, *xw;
    size_t n, k;
    for (p = 0; p < a->n_up; p++) {
        if (a->up[p].kind == FGL_SEND_MODEL) pm = p;
        if (a->up[p].kind == FGL_SEND_WEIGHT) pw = p;
    }
    if (!q || !q->pk || !q->mask || q->round != run->round || pm < 0 || pw < 0 || !c->up.part[pm] || !c->up.part[pw]) {
        fgl__msg_clear(&c->up);
        return FGL_OK;
    }
    for (b = 0; b < run->n_clients; b++) N += run->n_registered[b];
    n = c->up.len[pm];
    v = (uint32_t *)fgl_scratch(&c->store, sizeof(uint32_t) * (n + 1));
    if (!v) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
    wn = c->up.part[pw][0] / N;
    lim = floor(2147483647.0 / q->n); /* n words of at most lim in magnitude sum to at most 2^31 - 1 */
    for (k = 0; k <= n; k++) {
        double val = (k < n ? wn * c->up.part[pm][k] : wn) * scale;
        if (!(fabs(val) <= lim)) { /* the sum could wrap (or not finite): withheld, rejected, counted */
            if (k < n)
                snprintf(c->err.msg, sizeof c->err.msg,
                         FGL__SA_RANGE_MSG ": model value %lu times n_i/N = %g is %g, beyond the %g each of %d "
                         "participants may add at %d fraction bits without the sum wrapping: upload withheld",
                         (unsigned long)k, wn, wn * c->up.part[pm][k], lim / scale, q->n, cfg->secagg.frac_bits);
            else
                snprintf(c->err.msg, sizeof c->err.msg,
                         FGL__SA_RANGE_MSG ": its weight n_i/N = %g (sample count %g of N = %g) is beyond the %g "
                         "each of %d participants may add at %d fraction bits without the sum wrapping: upload withheld",
                         wn, (double)c->up.part[pw][0], N, lim / scale, q->n, cfg->secagg.frac_bits);
            fgl__msg_clear(&c->up);
            return FGL_OK;
        }
        v[k] = (uint32_t)(int32_t)llround(val); /* |llround(val)| <= lim: no overflow */
    }
    fgl__add_stream(v, n + 1, q->self, q->round, 1);
    for (b = 0; b < q->n; b++) /* the pair keys of step 2 (each checked there) */
        if (b != q->me) fgl__add_stream(v, n + 1, q->mask + (size_t)b * 32, q->round, q->ids[b] > c->id ? 1 : -1);
    if (!(xm = fgl__msg_write(&c->up, pm)) || !(xw = fgl__msg_write(&c->up, pw)))
        return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
    memcpy(xm, v, sizeof(uint32_t) * n); /* ring values carried as 4 bytes each */
    memcpy(xw, v + n, sizeof(uint32_t));
    return FGL_OK;
}

/* The survivors list as a tag's associated data: the participants' ids
 * (4 bytes each) and their alive flags (1 byte each), in order. */
static unsigned char *fgl__sa_list_bytes(const struct fgl__sa_client *q, const unsigned char *alive, size_t *len) {
    unsigned char *b = (unsigned char *)FGL_MALLOC((size_t)q->n * 5);
    int a;
    if (!b) return NULL;
    for (a = 0; a < q->n; a++) {
        fgl__put_le32(b + 4 * (size_t)a, (uint32_t)q->ids[a]);
        b[4 * (size_t)q->n + a] = alive[a] != 0;
    }
    *len = (size_t)q->n * 5;
    return b;
}

/* Step 4, the consistency check: the survivors list alive (n flags) as this
 * client received it, vouched for to each surviving peer k: the tag of
 * ChaCha20-Poly1305 over nothing with the list as associated data, under
 * their pair's share key and the nonce (label, round, its id), out in
 * tags[k] (n x TAG; zero for itself and the others). A client that is not
 * a survivor, or holds no keys of the round, vouches for nothing
 * (FGL_ERR_EMPTY). */
FGL__PRIVATE int fgl__sa_confirm(fgl_client *c, const unsigned char *alive, unsigned char *tags) {
    struct fgl__sa_client *q = c->sa;
    unsigned char nonce[12], none[1] = {0};
    unsigned char *list;
    size_t len = 0;
    int k;
    memset(tags, 0, (size_t)(q ? q->n : 0) * FGL__SA_TAG);
    if (!q || !q->enc || q->me < 0 || !alive[q->me]) return FGL_ERR_EMPTY;
    if (!(list = fgl__sa_list_bytes(q, alive, &len)))
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    fgl__nonce(nonce, FGL__SA_CONFIRM, (uint32_t)q->round, (uint32_t)c->id);
    for (k = 0; k < q->n; k++)
        if (k != q->me && alive[k])
            fgl_aead_seal(none, tags + (size_t)k * FGL__SA_TAG, none, 0, list, len, q->enc + (size_t)k * 32, nonce);
    FGL_FREE(list);
    return FGL_OK;
}

/* How many survivors vouch for the list alive as this client received it:
 * itself, and each surviving peer k whose tag for it (tags, n x TAG: from
 * each participant to this one) checks under their pair's key; -1 out of
 * memory. */
static int fgl__sa_vouched(const fgl_client *c, const unsigned char *alive, const unsigned char *tags) {
    const struct fgl__sa_client *q = c->sa;
    unsigned char nonce[12], none[1] = {0};
    unsigned char *list;
    size_t len = 0;
    int k, n_ok = 1;
    if (!(list = fgl__sa_list_bytes(q, alive, &len))) return -1;
    for (k = 0; k < q->n; k++) {
        if (k == q->me || !alive[k]) continue;
        fgl__nonce(nonce, FGL__SA_CONFIRM, (uint32_t)q->round, (uint32_t)q->ids[k]);
        n_ok += fgl_aead_open(none, none, 0, tags + (size_t)k * FGL__SA_TAG, list, len, q->enc + (size_t)k * 32,
                              nonce) == 0;
    }
    FGL_FREE(list);
    return n_ok;
}

/* Step 4: alive (n flags), the n tags of the consistency check addressed to
 * it (from each participant) and the n sealed shares addressed to it (its
 * own slot ignored) in; out: n revealed shares, of b for a survivor, of s_sk
 * for the others. Reveals nothing (FGL_ERR_EMPTY) with fewer than t
 * survivors, or if it is not one, and nothing if fewer than t survivors
 * (itself included) vouch for the list it received (c->err.msg says so: the
 * server told the survivors different lists). The round's secrets are gone
 * after, but for the pairwise mask keys and the survivors, kept for step 5. */
FGL__PRIVATE int fgl__sa_reveal(fgl_client *c, const unsigned char *alive, const unsigned char *tags,
                                const unsigned char *ct, unsigned char *rev) {
    struct fgl__sa_client *q = c->sa;
    unsigned char pt[FGL__SA_PT], key[32], nonce[12];
    int a, m = 0, rc = FGL_OK, vouched;
    if (!q || !q->pk || !q->enc) return FGL_ERR_EMPTY;
    for (a = 0; a < q->n; a++) m += alive[a] != 0;
    if (m < q->t || !alive[q->me]) {
        fgl__sa_client_free(c);
        return FGL_ERR_EMPTY;
    }
    if ((vouched = fgl__sa_vouched(c, alive, tags)) < q->t) {
        if (vouched < 0) rc = fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        else
            snprintf(c->err.msg, sizeof c->err.msg, "secure aggregation, round %d: %d of the %d survivors named vouch for "
                     "the survivors list this client received, below the threshold %d: the server told them "
                     "different lists; nothing revealed", q->round + 1, vouched, m, q->t);
        fgl__sa_client_free(c);
        return rc ? rc : FGL_ERR_EMPTY;
    }
    for (a = 0; a < q->n && !rc; a++) {
        unsigned char *out = rev + (size_t)a * FGL__SA_REV;
        if (a == q->me) {
            memcpy(out, q->own + FGL_SHARE_BYTES, FGL_SHARE_BYTES); /* its own b: it survived */
            continue;
        }
        memcpy(key, q->enc + (size_t)a * 32, 32);
        fgl__nonce(nonce, FGL__SA_ENC, (uint32_t)q->round, (uint32_t)q->ids[a]);
        if (fgl_aead_open(pt, ct + (size_t)a * FGL__SA_CT, FGL__SA_PT, ct + (size_t)a * FGL__SA_CT + FGL__SA_PT, NULL,
                          0, key, nonce) != 0 ||
            fgl__get_le32(pt) != (uint32_t)q->ids[a] || fgl__get_le32(pt + 4) != (uint32_t)c->id ||
            fgl__get_le32(pt + 8) != (uint32_t)q->round)
            rc = fgl_client_fail(c, FGL_ERR_FORMAT, "secure aggregation: the share from client %d does not open",
                                 q->ids[a]);
        else
            memcpy(out, pt + 12 + (alive[a] ? FGL_SHARE_BYTES : 0), FGL_SHARE_BYTES);
    }
    fgl__crypto_wipe(pt, sizeof pt);
    fgl__crypto_wipe(key, sizeof key);
    if (rc || !(q->alive = (unsigned char *)FGL_MALLOC((size_t)q->n))) {
        fgl__sa_client_free(c);
        return rc ? rc : fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    memcpy(q->alive, alive, (size_t)q->n);
    fgl__crypto_wipe(q->c_sk, sizeof q->c_sk); /* all but the mask keys go now */
    fgl__crypto_wipe(q->s_sk, sizeof q->s_sk);
    fgl__crypto_wipe(q->self, sizeof q->self);
    fgl__crypto_wipe(q->own, sizeof q->own);
    fgl__crypto_wipe(q->enc, (size_t)q->n * 32);
    FGL_FREE(q->enc);
    q->enc = NULL;
    return FGL_OK;
}

/* v[k] += sign x the k-th 64-bit word of key's metrics stream in round r. */
static void fgl__add_stream64(uint64_t *v, size_t n, const unsigned char key[32], int round, int sign) {
    uint32_t w[2 * FGL__SA_NM];
    unsigned char nonce[12];
    size_t k;
    fgl__nonce(nonce, FGL__SA_METRIC, (uint32_t)round, 0);
    FGL_ASSERT(n <= FGL__SA_NM);
    fgl_chacha20_words(w, 2 * n, key, nonce, 0);
    for (k = 0; k < n; k++) {
        uint64_t x = ((uint64_t)w[2 * k] << 32) | w[2 * k + 1];
        v[k] = sign > 0 ? v[k] + x : v[k] - x;
    }
    fgl__crypto_wipe(w, sizeof w);
}

/* Step 5, a survivor's side: its round's numbers as (value x weight,
 * weight) pairs: the training loss, then (evaluated rounds) validation and
 * test accuracy (a link task: AUC, weighted by the split's positive pairs,
 * as in the plain means; else weight 1, and a client without a test set
 * weighs 0 in the test's), the link task's Hits@K (its weights are the
 * accuracy's), then validation and test macro-F1 and AUC (weight 1 where
 * defined). A number that is not finite or whose term could wrap the sum
 * of the round's n survivors (|x| 2^24 > 2^62 / n) weighs 0. The words are
 * masked by the pair streams of the surviving peers; the mask keys are then
 * wiped (c->sa goes). FGL_ERR_EMPTY: it holds no mask keys of this round
 * (not a survivor, or the round was not unmasked); FGL_ERR_ARG: its
 * evaluation failed (c->err.msg says why). */
FGL__PRIVATE int fgl__sa_metrics_mask(fgl_client *c, int round, int evaluated, uint64_t out[FGL__SA_NM]) {
    struct fgl__sa_client *q = c->sa;
    double x[FGL__SA_NM / 2], w[FGL__SA_NM / 2], lim;
    int k, b, link = c->task == FGL_TASK_LINK;
    if (!q || !q->alive || !q->mask || q->round != round || q->me < 0) {
        fgl__sa_client_free(c);
        return FGL_ERR_EMPTY;
    }
    for (k = 0; k < FGL__SA_NM / 2; k++) x[k] = w[k] = 0;
    x[0] = c->train_loss;
    w[0] = 1;
    if (evaluated) {
        if (c->val_acc < 0 || c->test_acc < 0) {
            fgl__sa_client_free(c);
            snprintf(c->err.msg, sizeof c->err.msg, "evaluation failed: %.200s", c->tape.err.msg);
            return FGL_ERR_ARG;
        }
        x[1] = c->val_acc;
        x[2] = c->test_acc;
        w[1] = link ? (c->n_val > 0 ? c->n_val : 0) : 1;
        w[2] = link ? (c->n_test > 0 ? c->n_test : 0) : c->n_test > 0;
        x[3] = link ? c->val_hits : 0;
        x[4] = link ? c->test_hits : 0;
        w[3] = link ? w[1] : 0;
        w[4] = link ? w[2] : 0;
        x[5] = c->val_f1;
        x[6] = c->n_test > 0 ? c->test_f1 : NAN;
        x[7] = c->val_auc;
        x[8] = c->n_test > 0 ? c->test_auc : NAN;
        w[5] = w[6] = w[7] = w[8] = 1;
    }
    for (b = 0, lim = 0; b < q->n; b++) lim += q->alive[b] != 0;
    lim = ldexp(1.0, 62 - FGL__SA_METRIC_BITS) / (lim > 0 ? lim : 1);
    for (k = 0; k < FGL__SA_NM / 2; k++) {
        double v = x[k] * w[k];
        if (!(fabs(v) <= lim && fabs(w[k]) <= lim)) v = w[k] = 0; /* NaN (none), or too large to sum */
        out[2 * k] = (uint64_t)(int64_t)llround(ldexp(v, FGL__SA_METRIC_BITS));
        out[2 * k + 1] = (uint64_t)(int64_t)llround(ldexp(w[k], FGL__SA_METRIC_BITS));
    }
    for (b = 0; b < q->n; b++)
        if (b != q->me && q->alive[b])
            fgl__add_stream64(out, FGL__SA_NM, q->mask + (size_t)b * 32, q->round, q->ids[b] > c->id ? 1 : -1);
    fgl__sa_client_free(c);
    return FGL_OK;
}

/* --- the server's side ------------------------------------------------------------ */

/* Bytes of the protocol, counted where they travel. */
static void fgl__sa_bytes(fgl_run *run, fgl_round_stats *st, int client, size_t up, size_t down) {
    size_t k = (size_t)run->round * run->n_clients + client;
    run->client_up[k] += up;
    run->client_down[k] += down;
    st->bytes_up += up;
    st->bytes_down += down;
    run->bytes_down += down;
}

static int fgl__sa_transport(fgl_run *run, int step); /* (run.h: the transport's step, if any) */

/* Steps 1 and 2, before the round's training: keys out and back, shares
 * out; sa->ready when every participant took part in both. */
static int fgl__secagg_setup(fgl_run *run, fgl_round_stats *st) {
    struct fgl__sa *sa;
    int n = run->n_part, a, q, rc;
    fgl__sa_free(run->sa);
    run->sa = sa = (struct fgl__sa *)fgl__zalloc(sizeof *sa);
    if (!sa) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    sa->round = run->round;
    sa->n = n;
    sa->t = fgl__sa_threshold(&run->cfg, n);
    for (q = 0; q < n; q++) fgl__sa_client_free(&run->clients[run->part[q]]);
    if (n < sa->t) return FGL_OK; /* too few to reach the threshold: not unmasked, nothing sent */
    sa->ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    sa->pk = (unsigned char *)fgl__zalloc((size_t)n * FGL__SA_PK);
    sa->ct = (unsigned char *)fgl__zalloc((size_t)n * n * FGL__SA_CT);
    sa->alive = (unsigned char *)fgl__zalloc((size_t)n);
    sa->rev = (unsigned char *)fgl__zalloc((size_t)n * n * FGL__SA_REV);
    sa->has_rev = (unsigned char *)fgl__zalloc((size_t)n);
    if (!sa->ids || !sa->pk || !sa->ct || !sa->alive || !sa->rev || !sa->has_rev)
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    memcpy(sa->ids, run->part, sizeof(int) * (size_t)n);
    sa->ready = 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local) fgl__sa_keys(run, c, run->round, n, sa->ids, sa->pk + (size_t)a * FGL__SA_PK);
    }
    if ((rc = fgl__sa_transport(run, 1))) return rc;
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->err.code) return fgl__client_error(run, c, "secure aggregation keys");
        sa->ready &= !run->lost[c->id];
        fgl__sa_bytes(run, st, c->id, FGL__SA_PK, (size_t)n * FGL__SA_PK);
    }
    if (!sa->ready) return FGL_OK; /* a host lost before its keys went round: the round is not unmasked */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local) fgl__sa_share(run, c, sa->pk, sa->t, sa->ct + (size_t)a * n * FGL__SA_CT);
    }
    if ((rc = fgl__sa_transport(run, 2))) return rc;
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->err.code) return fgl__client_error(run, c, "secure aggregation shares");
        sa->ready &= !run->lost[c->id];
        fgl__sa_bytes(run, st, c->id, (size_t)(n - 1) * FGL__SA_CT, 0);
    }
    return FGL_OK;
}

/* Rebuild a secret from the first t of the survivors' shares about b. */
static int fgl__sa_combine(const struct fgl__sa *sa, int b, unsigned char secret[32]) {
    unsigned char sh[64 * FGL_SHARE_BYTES], *buf = sh;
    uint32_t xs_small[64], *xs = xs_small;
    int a, k = 0, rc;
    if (sa->t > 64) {
        buf = (unsigned char *)FGL_MALLOC((size_t)sa->t * FGL_SHARE_BYTES);
        xs = (uint32_t *)FGL_MALLOC(sizeof(uint32_t) * (size_t)sa->t);
        if (!buf || !xs) {
            FGL_FREE(buf != sh ? buf : NULL);
            FGL_FREE(xs != xs_small ? xs : NULL);
            return FGL_ERR_NOMEM;
        }
    }
    for (a = 0; a < sa->n && k < sa->t; a++)
        if (sa->has_rev[a]) {
            memcpy(buf + (size_t)k * FGL_SHARE_BYTES, sa->rev + ((size_t)a * sa->n + b) * FGL__SA_REV, FGL_SHARE_BYTES);
            xs[k++] = (uint32_t)(a + 1);
        }
    rc = k < sa->t ? FGL_ERR_EMPTY : fgl_shamir_combine(secret, buf, xs, sa->t);
    fgl__crypto_wipe(buf, (size_t)sa->t * FGL_SHARE_BYTES);
    if (buf != sh) FGL_FREE(buf);
    if (xs != xs_small) FGL_FREE(xs);
    return rc;
}

/* Step 4 and the unmasking, once the round's uploads are checked: the
 * survivors are the accepted uploads; s->secagg_sum is the sum, or NULL
 * when the round cannot be unmasked (st->n_unmasked_fail counts it). */
static int fgl__secagg_unmask(fgl_run *run, fgl_round_stats *st) {
    struct fgl__sa *sa = run->sa;
    const fgl_algo *al = &run->algo;
    int a, b, n, m = 0, pm = -1, pw = -1, p, rc;
    size_t len = 0, k;
    run->server.secagg_sum = NULL;
    run->server.secagg_len = 0;
    if (!sa || !sa->ready) {
        st->secagg_failed = 1;
        return FGL_OK;
    }
    n = sa->n;
    for (p = 0; p < al->n_up; p++) {
        if (al->up[p].kind == FGL_SEND_MODEL) pm = p;
        if (al->up[p].kind == FGL_SEND_WEIGHT) pw = p;
    }
    for (a = 0; a < n; a++) {
        int id = sa->ids[a];
        sa->alive[a] = run->accepted[id];
        m += sa->alive[a];
        if (sa->alive[a]) len = run->clients[id].up.len[pm];
    }
    if (m < sa->t) { /* below the threshold: the survivors reveal nothing */
        for (a = 0; a < n; a++) {
            if (sa->alive[a]) /* the survivors list and the sealed shares to it, down, as in a round above it */
                fgl__sa_bytes(run, st, sa->ids[a], 0, (size_t)n + (size_t)(n - 1) * FGL__SA_CT);
            fgl__sa_client_free(&run->clients[sa->ids[a]]);
        }
        st->secagg_failed = 1;
        return FGL_OK;
    }
    /* the consistency check: each survivor's tags of the list it received, one per surviving peer */
    if (!sa->tag && !(sa->tag = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_TAG)))
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    memset(sa->tag, 0, (size_t)n * n * FGL__SA_TAG);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local && sa->alive[a]) fgl__sa_confirm(c, sa->alive, sa->tag + (size_t)a * n * FGL__SA_TAG);
    }
    if ((rc = fgl__sa_transport(run, 4))) return rc;
    for (a = 0; a < n; a++) { /* list down; tags up; then the tags and sealed shares to each survivor down */
        if (!sa->alive[a]) continue;
        if (run->clients[sa->ids[a]].err.code)
            return fgl__client_error(run, &run->clients[sa->ids[a]], "secure aggregation consistency check");
        fgl__sa_bytes(run, st, sa->ids[a], (size_t)(m - 1) * FGL__SA_TAG,
                      (size_t)n + (size_t)(m - 1) * FGL__SA_TAG + (size_t)(n - 1) * FGL__SA_CT);
    }
    {   /* the tags to each survivor, [b n + a]: from a to b */
        unsigned char *col = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_TAG);
        if (!col) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        for (b = 0; b < n; b++)
            for (a = 0; a < n; a++)
                memcpy(col + ((size_t)b * n + a) * FGL__SA_TAG, sa->tag + ((size_t)a * n + b) * FGL__SA_TAG,
                       FGL__SA_TAG);
        memcpy(sa->tag, col, (size_t)n * n * FGL__SA_TAG);
        FGL_FREE(col);
    }
    {   /* the survivors' reveals (each reads the column of sealed shares addressed to it) */
        unsigned char *col = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_CT);
        if (!col) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        for (b = 0; b < n; b++)
            for (a = 0; a < n; a++)
                memcpy(col + ((size_t)b * n + a) * FGL__SA_CT, sa->ct + ((size_t)a * n + b) * FGL__SA_CT, FGL__SA_CT);
        memcpy(sa->ct, col, (size_t)n * n * FGL__SA_CT); /* now [b n + a]: from a to b */
        FGL_FREE(col);
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local && sa->alive[a])
            sa->has_rev[a] = fgl__sa_reveal(c, sa->alive, sa->tag + (size_t)a * n * FGL__SA_TAG,
                                            sa->ct + (size_t)a * n * FGL__SA_CT,
                                            sa->rev + (size_t)a * n * FGL__SA_REV) == FGL_OK;
        else if (c->local)
            fgl__sa_client_free(c);
    }
    if ((rc = fgl__sa_transport(run, 3))) return rc;
    for (a = 0; a < n; a++) {
        if (!sa->alive[a]) continue;
        if (run->clients[sa->ids[a]].err.code)
            return fgl__client_error(run, &run->clients[sa->ids[a]], "secure aggregation reveal");
        if (sa->has_rev[a]) fgl__sa_bytes(run, st, sa->ids[a], (size_t)n * FGL__SA_REV, 0);
    }
    FGL_FREE(sa->sum);
    if (!(sa->sum = (uint32_t *)fgl__zalloc(sizeof(uint32_t) * (len + 1))))
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    sa->len = len;
    for (a = 0; a < n; a++) { /* the masked uploads, added in the ring */
        const fgl_msg *u = &run->clients[sa->ids[a]].up;
        if (!sa->alive[a]) continue;
        for (k = 0; k < len; k++) {
            uint32_t v;
            memcpy(&v, u->part[pm] + k, 4);
            sa->sum[k] += v;
        }
        {
            uint32_t v;
            memcpy(&v, u->part[pw], 4);
            sa->sum[len] += v;
        }
    }
    for (b = 0; b < n; b++) { /* the survivors' self-masks; the dropped ones' masks with the survivors */
        unsigned char secret[32];
        if (fgl__sa_combine(sa, b, secret)) { /* too few reveals arrived (a host lost while revealing) */
            fgl__crypto_wipe(secret, sizeof secret);
            st->secagg_failed = 1;
            return FGL_OK;
        }
        if (sa->alive[b]) {
            fgl__add_stream(sa->sum, len + 1, secret, sa->round, -1);
        } else {
            for (a = 0; a < n; a++) {
                unsigned char key[32];
                if (!sa->alive[a]) continue;
                if (fgl__pair_key(key, secret, sa->pk + (size_t)a * FGL__SA_PK + 32, FGL__SA_PAIR, sa->ids[a],
                                  sa->ids[b])) { /* its peers refused it in step 2: cannot happen in a round that got here */
                    fgl__crypto_wipe(secret, sizeof secret);
                    return fgl_error_set(&run->err, FGL_ERR_FORMAT, "secure aggregation: client %d's public key is "
                                         "of small order", sa->ids[a]);
                }
                /* survivor a added + the pair's stream if its id is the lower */
                fgl__add_stream(sa->sum, len + 1, key, sa->round, sa->ids[a] < sa->ids[b] ? -1 : 1);
                fgl__crypto_wipe(key, sizeof key);
            }
        }
        fgl__crypto_wipe(secret, sizeof secret);
    }
    run->server.secagg_sum = sa->sum;
    run->server.secagg_len = len;
    return FGL_OK;
}

/* Step 5's slots on the server: one row of masked words per participant. */
static int fgl__sa_metric_slots(struct fgl__sa *sa) {
    if (!sa->mw) sa->mw = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * FGL__SA_NM * (size_t)FGL__MAX(sa->n, 1));
    if (!sa->has_mw) sa->has_mw = (unsigned char *)fgl__zalloc((size_t)FGL__MAX(sa->n, 1));
    return sa->mw && sa->has_mw ? FGL_OK : FGL_ERR_NOMEM;
}

/* Step 5 and the round's numbers under secure aggregation (fgl__phase_record
 * hands over to it): the local survivors mask their numbers (a transport
 * brought the others' in run->sa->mw); the server sums the rows, and the
 * round's means are ratios of the sums. Every client's own entry in the
 * history is NaN: the server never had it. A round that was not unmasked,
 * or one of whose survivors' rows did not arrive, has no numbers (NaN). */
static int fgl__secagg_record(fgl_run *run, fgl_round_stats *st, int evaluated) {
    struct fgl__sa *sa = run->sa;
    uint64_t sum[FGL__SA_NM];
    double mean[FGL__SA_NM / 2];
    int a, i, k, q, ok, link = run->clients[0].task == FGL_TASK_LINK;
    double *hist[7];
    hist[0] = run->client_val;
    hist[1] = run->client_test;
    hist[2] = run->client_val_f1;
    hist[3] = run->client_test_f1;
    hist[4] = run->client_val_auc;
    hist[5] = run->client_test_auc;
    hist[6] = run->client_loss;
    for (i = 0; i < run->n_clients; i++)
        for (q = 0; q < 7; q++) hist[q][(size_t)run->round * run->n_clients + i] = NAN;
    ok = sa && sa->ready && sa->sum && !st->secagg_failed && fgl__sa_metric_slots(sa) == FGL_OK;
    for (a = 0; ok && a < sa->n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        int rc;
        if (!sa->alive[a] || !c->local) continue;
        rc = fgl__sa_metrics_mask(c, run->round, evaluated, sa->mw + (size_t)a * FGL__SA_NM);
        if (rc == FGL_ERR_ARG)
            return fgl_error_set(&run->err, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "%s, round %d, client %d: %s",
                                 run->algo.name, run->round + 1, c->id, c->err.msg);
        sa->has_mw[a] = rc == FGL_OK;
    }
    for (i = 0; i < run->n_clients; i++) /* the others' mask keys go too */
        if (run->clients[i].local) fgl__sa_client_free(&run->clients[i]);
    for (k = 0; k < FGL__SA_NM; k++) sum[k] = 0;
    for (a = 0; ok && a < sa->n; a++) {
        if (!sa->alive[a]) continue;
        if (!sa->has_mw[a]) ok = 0; /* its masks stay in the sum */
        else {
            fgl__sa_bytes(run, st, sa->ids[a], 8 * FGL__SA_NM, 0); /* its step 5 upload */
            run->bytes_up += 8 * FGL__SA_NM;
        }
        for (k = 0; k < FGL__SA_NM; k++) sum[k] += sa->mw[(size_t)a * FGL__SA_NM + k];
    }
    for (k = 0; k < FGL__SA_NM / 2; k++) {
        int64_t num = (int64_t)sum[2 * k], den = (int64_t)sum[2 * k + 1];
        mean[k] = ok && den > 0 ? (double)num / (double)den : NAN;
    }
    if (sa && sa->mw) memset(sa->mw, 0, sizeof(uint64_t) * FGL__SA_NM * (size_t)sa->n);
    if (sa && sa->has_mw) memset(sa->has_mw, 0, (size_t)sa->n);
    st->train_loss = mean[0];
    st->val_acc = evaluated ? mean[1] : NAN;
    st->test_acc = evaluated ? mean[2] : NAN;
    st->val_hits = evaluated && link ? mean[3] : NAN;
    st->test_hits = evaluated && link ? mean[4] : NAN;
    st->val_f1 = evaluated ? mean[5] : NAN;
    st->test_f1 = evaluated ? mean[6] : NAN;
    st->val_auc = evaluated ? mean[7] : NAN;
    st->test_auc = evaluated ? mean[8] : NAN;
    return FGL_OK;
}

/* The server's DP key, from the run's secrets (kept in the run, never in
 * a checkpoint: a resumed run draws a new one unless the secrets come from
 * a seed). */
static int fgl__secrets_start(fgl_run *run) {
    if (!(run->cfg.dp.clip > 0)) return FGL_OK;
    return fgl__secret_bytes(&run->cfg, run->dp_key, FGL__SECRET_DP_KEY, 0, 0, &run->err);
}

/* DP-FedAvg's participants of round r, into ids: each client independently with
 * probability q = cfg.frac, from the DP key's stream (the server's secret,
 * so the public seed does not tell who took part). */
static int fgl__poisson_participants(fgl_run *run, int round, int *ids) {
    uint32_t w[1024];
    unsigned char nonce[12];
    double thresh = (double)run->cfg.frac * 4294967296.0;
    int i, n = 0;
    fgl__nonce(nonce, FGL__SECRET_DP_PART, (uint32_t)round, 0);
    for (i = 0; i < run->n_clients; i++) {
        if (i % 1024 == 0)
            fgl_chacha20_words(w, 1024, run->dp_key, nonce, (uint32_t)(i / 1024) * 64u);
        if ((double)w[i % 1024] < thresh) ids[n++] = i;
    }
    return n;
}

/* Simulated dropouts (cfg.secagg.dropout): participants whose masked
 * upload never arrives (drawn from the run seed: a simulation's choice, not
 * a secret). A lost client is a dropout to its peers. */
static void fgl__secagg_dropouts(fgl_run *run, fgl_round_stats *st) {
    fgl_rng r;
    int q;
    memset(run->dropped, 0, (size_t)run->n_clients);
    fgl_rng_init(&r, run->cfg.seed, 0x44524f50ull + (uint64_t)run->round); /* "DROP" + round */
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        if ((run->cfg.secagg.dropout > 0 && fgl_rng_uniform(&r) < run->cfg.secagg.dropout) || run->lost[c->id]) {
            run->dropped[c->id] = 1;
            fgl__msg_clear(&c->up);
            st->n_dropped += !run->lost[c->id]; /* lost ones are counted as lost */
        }
    }
}
#include "../alone.h"
