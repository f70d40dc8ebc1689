/* imbalance: an ordinary MPI program with a controllable process arrival pattern.
 *
 * Each iteration every rank "computes" for a delay chosen by --pattern, then calls the
 * selected collectives (with --delay-per call it computes before each of them). It uses MPI only (no papshim headers), so it shows what the shim
 * sees in an unmodified application. Rank 0 prints a checksum of every rank's results
 * (identical whatever algorithm ran) and, on a separate line, the mean time per call.
 *
 *   mpiexec -n 4 ./imbalance --pattern one-late:2:20 --iterations 30
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum collective { ALLGATHER, ALLGATHERV, ALLREDUCE, REDUCE, N_COLLECTIVES };
static const char *const collective_names[N_COLLECTIVES] = {"allgather", "allgatherv",
                                                            "allreduce", "reduce"};

enum pattern_kind { PATTERN_NONE, PATTERN_ONE_LATE, PATTERN_RANDOM, PATTERN_STAIRCASE };

struct options {
    enum pattern_kind pattern;
    const char *pattern_text;
    int late_rank;      /* one-late */
    double delay_ms;    /* one-late: its delay; random: the maximum; staircase: the step */
    unsigned seed;
    int delay_each_call; /* compute before every collective, not once per iteration */
    int enabled[N_COLLECTIVES];
    int count;
    int use_double;
    int root;
    int in_place;
    int iterations;
};

/* Per-collective results of one rank: an FNV-1a hash of every result buffer, the
 * number of elements that differ from the expected value, and the time spent. */
struct tally {
    uint64_t hash[N_COLLECTIVES];
    long calls[N_COLLECTIVES];
    double seconds[N_COLLECTIVES];
    long errors;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: imbalance [--pattern none|one-late:RANK:MS|random:MAX_MS|staircase:STEP_MS]\n"
            "                 [--seed N] [--collectives allgather,allgatherv,allreduce,reduce]\n"
            "                 [--count N] [--type int|double] [--root R] [--in-place]\n"
            "                 [--iterations N] [--delay-per iteration|call]\n");
}

static int fail_usage(int rank, const char *what, const char *value)
{
    if (rank == 0) {
        fprintf(stderr, "imbalance: invalid %s '%s'\n", what, value);
        usage(stderr);
    }
    return 0;
}

static int parse_int(const char *text, int minimum, int *out)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < minimum || value > 1000000000L)
        return 0;
    *out = (int)value;
    return 1;
}

static int parse_ms(const char *text, double *out)
{
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= 0.0) || value > 60000.0)
        return 0;
    *out = value;
    return 1;
}

static int parse_pattern(const char *text, struct options *opt)
{
    opt->pattern_text = text;
    if (strcmp(text, "none") == 0) {
        opt->pattern = PATTERN_NONE;
        return 1;
    }
    if (strncmp(text, "one-late:", 9) == 0) {
        char rank_text[32];
        const char *colon = strchr(text + 9, ':');
        size_t length = colon ? (size_t)(colon - (text + 9)) : 0;
        if (colon == NULL || length == 0 || length >= sizeof rank_text)
            return 0;
        memcpy(rank_text, text + 9, length);
        rank_text[length] = '\0';
        opt->pattern = PATTERN_ONE_LATE;
        return parse_int(rank_text, 0, &opt->late_rank) && parse_ms(colon + 1, &opt->delay_ms);
    }
    if (strncmp(text, "random:", 7) == 0) {
        opt->pattern = PATTERN_RANDOM;
        return parse_ms(text + 7, &opt->delay_ms);
    }
    if (strncmp(text, "staircase:", 10) == 0) {
        opt->pattern = PATTERN_STAIRCASE;
        return parse_ms(text + 10, &opt->delay_ms);
    }
    return 0;
}

static int parse_collectives(const char *text, struct options *opt)
{
    char list[256];
    if (strlen(text) >= sizeof list)
        return 0;
    strcpy(list, text);
    memset(opt->enabled, 0, sizeof opt->enabled);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int c = 0; c < N_COLLECTIVES; ++c)
            if (strcmp(name, collective_names[c]) == 0)
                opt->enabled[c] = found = 1;
        if (!found)
            return 0;
    }
    return opt->enabled[ALLGATHER] | opt->enabled[ALLGATHERV] | opt->enabled[ALLREDUCE] | opt->enabled[REDUCE];
}

/* Returns 1 on success; on failure rank 0 has printed why. */
static int parse_options(int argc, char **argv, int rank, int size, struct options *opt)
{
    *opt = (struct options){
        .pattern = PATTERN_NONE, .pattern_text = "none", .seed = 1, .count = 1024, .iterations = 20};
    for (int c = 0; c < N_COLLECTIVES; ++c)
        opt->enabled[c] = 1;
    for (int i = 1; i < argc; ++i) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int seed = 0;
        if (strcmp(flag, "--in-place") == 0) {
            opt->in_place = 1;
            continue;
        }
        if (strcmp(flag, "--help") == 0) {
            if (rank == 0)
                usage(stdout);
            return 0;
        }
        if (value == NULL)
            return fail_usage(rank, "option (missing value or unknown)", flag);
        ++i;
        if (strcmp(flag, "--pattern") == 0) {
            if (!parse_pattern(value, opt))
                return fail_usage(rank, "--pattern", value);
        } else if (strcmp(flag, "--seed") == 0) {
            if (!parse_int(value, 0, &seed))
                return fail_usage(rank, "--seed", value);
            opt->seed = (unsigned)seed;
        } else if (strcmp(flag, "--collectives") == 0) {
            if (!parse_collectives(value, opt))
                return fail_usage(rank, "--collectives", value);
        } else if (strcmp(flag, "--count") == 0) {
            if (!parse_int(value, 0, &opt->count) || opt->count > 1 << 24)
                return fail_usage(rank, "--count", value);
        } else if (strcmp(flag, "--type") == 0) {
            if (strcmp(value, "int") != 0 && strcmp(value, "double") != 0)
                return fail_usage(rank, "--type", value);
            opt->use_double = strcmp(value, "double") == 0;
        } else if (strcmp(flag, "--root") == 0) {
            if (!parse_int(value, 0, &opt->root) || opt->root >= size)
                return fail_usage(rank, "--root (must be below the number of ranks)", value);
        } else if (strcmp(flag, "--delay-per") == 0) {
            if (strcmp(value, "iteration") != 0 && strcmp(value, "call") != 0)
                return fail_usage(rank, "--delay-per", value);
            opt->delay_each_call = strcmp(value, "call") == 0;
        } else if (strcmp(flag, "--iterations") == 0) {
            if (!parse_int(value, 1, &opt->iterations))
                return fail_usage(rank, "--iterations", value);
        } else {
            return fail_usage(rank, "option", flag);
        }
    }
    return 1;
}

/* A small integer-valued hash so that the random pattern and the data are reproducible
 * per (seed, rank, iteration) without any shared random state. */
static uint32_t mix(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static double compute_delay_ms(const struct options *opt, int rank, int iteration)
{
    switch (opt->pattern) {
    case PATTERN_ONE_LATE:
        return rank == opt->late_rank ? opt->delay_ms : 0.0;
    case PATTERN_RANDOM:
        return opt->delay_ms * (mix(opt->seed, (uint32_t)rank, (uint32_t)iteration) % 1001u) / 1000.0;
    case PATTERN_STAIRCASE:
        return opt->delay_ms * rank;
    case PATTERN_NONE:
        break;
    }
    return 0.0;
}

/* Sleep rather than spin: with more ranks than cores a spinning rank would steal the
 * CPU from the ranks it is supposed to be late for. */
static void compute(double milliseconds)
{
    if (milliseconds <= 0.0)
        return;
    struct timespec pause = {.tv_sec = (time_t)(milliseconds / 1000.0),
                             .tv_nsec = (long)((milliseconds - 1000.0 * (long)(milliseconds / 1000.0)) * 1e6)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

/* Element i of rank r's contribution in an iteration. Small integers, so sums of doubles
 * are exact in any order and the checksum does not depend on the reduction order. */
static int contribution(int rank, int iteration, int i)
{
    return (int)((7u * (unsigned)rank + 13u * (unsigned)iteration + 3u * (unsigned)i) % 1000u);
}

/* Allgatherv block sizes differ per rank so that the v-variant is really irregular. */
static int block_count(const struct options *opt, int rank)
{
    return opt->count + rank % 3;
}

struct buffers {
    size_t element_size;
    MPI_Datatype type;
    void *send;
    void *recv;
    int *counts;
    int *displs;
};

static void store(const struct buffers *b, void *base, size_t index, int value)
{
    if (b->type == MPI_DOUBLE)
        ((double *)base)[index] = (double)value;
    else
        ((int *)base)[index] = value;
}

static int load(const struct buffers *b, const void *base, size_t index)
{
    return b->type == MPI_DOUBLE ? (int)((const double *)base)[index] : ((const int *)base)[index];
}

static void fill(const struct buffers *b, void *base, size_t offset, int count, int rank, int iteration)
{
    for (int i = 0; i < count; ++i)
        store(b, base, offset + (size_t)i, contribution(rank, iteration, i));
}

static void hash_bytes(uint64_t *hash, const void *data, size_t length)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < length; ++i) {
        *hash ^= bytes[i];
        *hash *= 0x100000001B3ull;
    }
}

static void check_gathered(const struct buffers *b, const int *counts, const int *displs, int size,
                           int iteration, struct tally *t)
{
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < counts[r]; ++i)
            if (load(b, b->recv, (size_t)displs[r] + (size_t)i) != contribution(r, iteration, i))
                ++t->errors;
}

static void check_reduced(const struct buffers *b, int count, int size, int iteration, int use_max,
                          struct tally *t)
{
    for (int i = 0; i < count; ++i) {
        int expected = 0;
        for (int r = 0; r < size; ++r) {
            int value = contribution(r, iteration, i);
            expected = use_max ? (r == 0 || value > expected ? value : expected) : expected + value;
        }
        if (load(b, b->recv, (size_t)i) != expected)
            ++t->errors;
    }
}

static void timed_done(struct tally *t, enum collective c, double start, const struct buffers *b,
                       size_t result_bytes)
{
    t->seconds[c] += MPI_Wtime() - start;
    ++t->calls[c];
    hash_bytes(&t->hash[c], b->recv, result_bytes);
}

/* The compute phase: once per iteration, or before every collective with --delay-per call
 * so that every call site sees the same arrival pattern. */
static void compute_before(const struct options *opt, enum collective c, int rank, int iteration)
{
    int first_enabled = 0;
    while (!opt->enabled[first_enabled])
        ++first_enabled;
    if (opt->delay_each_call || (int)c == first_enabled)
        compute(compute_delay_ms(opt, rank, iteration));
}

/* First call site: the "halo exchange" gathers every rank's block. */
__attribute__((noinline)) static void exchange_halo(const struct options *opt, const struct buffers *b,
                                                    int rank, int size, int iteration, struct tally *t)
{
    if (opt->enabled[ALLGATHER]) {
        compute_before(opt, ALLGATHER, rank, iteration);
        int *counts = b->counts, *displs = b->displs;
        for (int r = 0; r < size; ++r) {
            counts[r] = opt->count;
            displs[r] = r * opt->count;
        }
        const void *send = b->send;
        if (opt->in_place) {
            send = MPI_IN_PLACE;
            fill(b, b->recv, (size_t)displs[rank], opt->count, rank, iteration);
        } else {
            fill(b, b->send, 0, opt->count, rank, iteration);
        }
        double start = MPI_Wtime();
        MPI_Allgather(send, opt->count, b->type, b->recv, opt->count, b->type, MPI_COMM_WORLD);
        timed_done(t, ALLGATHER, start, b, (size_t)size * (size_t)opt->count * b->element_size);
        check_gathered(b, counts, displs, size, iteration, t);
    }
    if (opt->enabled[ALLGATHERV]) {
        compute_before(opt, ALLGATHERV, rank, iteration);
        int *counts = b->counts, *displs = b->displs;
        int total = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = block_count(opt, r);
            displs[r] = total;
            total += counts[r];
        }
        const void *send = b->send;
        if (opt->in_place) {
            send = MPI_IN_PLACE;
            fill(b, b->recv, (size_t)displs[rank], counts[rank], rank, iteration);
        } else {
            fill(b, b->send, 0, counts[rank], rank, iteration);
        }
        double start = MPI_Wtime();
        MPI_Allgatherv(send, counts[rank], b->type, b->recv, counts, displs, b->type, MPI_COMM_WORLD);
        timed_done(t, ALLGATHERV, start, b, (size_t)total * b->element_size);
        check_gathered(b, counts, displs, size, iteration, t);
    }
}

/* Second call site: the "global sum" reduces every rank's block. */
__attribute__((noinline)) static void global_sum(const struct options *opt, const struct buffers *b,
                                                 int rank, int size, int iteration, struct tally *t)
{
    size_t bytes = (size_t)opt->count * b->element_size;
    if (opt->enabled[ALLREDUCE]) {
        compute_before(opt, ALLREDUCE, rank, iteration);
        const void *send = b->send;
        if (opt->in_place) {
            send = MPI_IN_PLACE;
            fill(b, b->recv, 0, opt->count, rank, iteration);
        } else {
            fill(b, b->send, 0, opt->count, rank, iteration);
        }
        double start = MPI_Wtime();
        MPI_Allreduce(send, b->recv, opt->count, b->type, MPI_SUM, MPI_COMM_WORLD);
        timed_done(t, ALLREDUCE, start, b, bytes);
        check_reduced(b, opt->count, size, iteration, 0, t);
    }
    if (opt->enabled[REDUCE]) {
        compute_before(opt, REDUCE, rank, iteration);
        const void *send = b->send;
        /* MPI_IN_PLACE is only legal at the root of a Reduce. */
        if (opt->in_place && rank == opt->root) {
            send = MPI_IN_PLACE;
            fill(b, b->recv, 0, opt->count, rank, iteration);
        } else {
            fill(b, b->send, 0, opt->count, rank, iteration);
        }
        double start = MPI_Wtime();
        MPI_Reduce(send, b->recv, opt->count, b->type, MPI_MAX, opt->root, MPI_COMM_WORLD);
        t->seconds[REDUCE] += MPI_Wtime() - start;
        ++t->calls[REDUCE];
        if (rank == opt->root) {
            hash_bytes(&t->hash[REDUCE], b->recv, bytes);
            check_reduced(b, opt->count, size, iteration, 1, t);
        }
    }
}

/* Point-to-point only, so the report does not add collectives to the profile. */
static void report(const struct options *opt, const struct tally *t, int rank, int size)
{
    enum { HASHES = N_COLLECTIVES, FIELDS = N_COLLECTIVES + 1 };
    uint64_t mine[FIELDS];
    memcpy(mine, t->hash, sizeof t->hash);
    mine[HASHES] = (uint64_t)t->errors;
    if (rank != 0) {
        MPI_Send(mine, FIELDS, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        return;
    }
    uint64_t combined[N_COLLECTIVES];
    uint64_t errors = 0;
    for (int c = 0; c < N_COLLECTIVES; ++c)
        combined[c] = 0xCBF29CE484222325ull;
    for (int r = 0; r < size; ++r) {
        uint64_t theirs[FIELDS];
        if (r == 0)
            memcpy(theirs, mine, sizeof mine);
        else
            MPI_Recv(theirs, FIELDS, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int c = 0; c < N_COLLECTIVES; ++c)
            hash_bytes(&combined[c], &theirs[c], sizeof theirs[c]);
        errors += theirs[HASHES];
    }
    printf("checksum");
    for (int c = 0; c < N_COLLECTIVES; ++c)
        if (opt->enabled[c])
            printf(" %s=%016llx", collective_names[c], (unsigned long long)combined[c]);
    printf("\nverify errors=%llu\n", (unsigned long long)errors);
    printf("timing_us");
    for (int c = 0; c < N_COLLECTIVES; ++c)
        if (opt->enabled[c])
            printf(" %s=%.1f", collective_names[c], t->calls[c] ? 1e6 * t->seconds[c] / (double)t->calls[c] : 0.0);
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct options opt;
    if (!parse_options(argc, argv, rank, size, &opt)) {
        int help = 0;
        for (int i = 1; i < argc; ++i)
            help |= strcmp(argv[i], "--help") == 0;
        MPI_Finalize();
        return help ? 0 : 2;
    }

    /* Room for the largest result: the Allgatherv one, whose blocks are up to count + 2. */
    struct buffers b = {.element_size = opt.use_double ? sizeof(double) : sizeof(int),
                        .type = opt.use_double ? MPI_DOUBLE : MPI_INT};
    size_t capacity = (size_t)size * ((size_t)opt.count + 2) + 1;
    b.send = calloc(capacity, b.element_size);
    b.recv = calloc(capacity, b.element_size);
    b.counts = calloc((size_t)size, sizeof(int));
    b.displs = calloc((size_t)size, sizeof(int));
    if (!b.send || !b.recv || !b.counts || !b.displs) {
        fprintf(stderr, "imbalance: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 0) {
        printf("imbalance: ranks=%d iterations=%d count=%d type=%s pattern=%s seed=%u delay_per=%s in_place=%d "
               "root=%d\n",
               size, opt.iterations, opt.count, opt.use_double ? "double" : "int", opt.pattern_text, opt.seed,
               opt.delay_each_call ? "call" : "iteration", opt.in_place, opt.root);
    }

    struct tally t;
    memset(&t, 0, sizeof t);
    for (int c = 0; c < N_COLLECTIVES; ++c)
        t.hash[c] = 0xCBF29CE484222325ull;
    for (int iteration = 0; iteration < opt.iterations; ++iteration) {
        exchange_halo(&opt, &b, rank, size, iteration, &t);
        global_sum(&opt, &b, rank, size, iteration, &t);
    }
    report(&opt, &t, rank, size);

    free(b.send);
    free(b.recv);
    free(b.counts);
    free(b.displs);
    MPI_Finalize();
    return t.errors == 0 ? 0 : 1;
}
