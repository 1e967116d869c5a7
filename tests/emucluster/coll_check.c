/* coll_check: MPI_Bcast and MPI_Scatter across an emulated cluster, with every result checked.
 *
 * Usage: coll_check [ROUNDS] [EXPECT_DISTINCT_HOSTS]
 * Broadcasts and scatters int buffers of several sizes (1 .. 64 Ki ints per rank) from varying
 * roots, ROUNDS times (default 3). Checks that each rank sees exactly what the root sent.
 * If EXPECT_DISTINCT_HOSTS is given, also checks that MPI_Get_processor_name returns that many
 * distinct names (one per emulated host). Rank 0 prints "coll_check: OK ..." on success, BEFORE
 * MPI_Finalize (emucluster's MPI_Finalize workaround ends the process inside MPI_Finalize).
 * Exit code 0 on success, 1 on a wrong result (after MPI_Abort).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int value(int round, int root, int i) { return round * 1000003 + root * 7919 + i; }

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    int expect_hosts = argc > 2 ? atoi(argv[2]) : 0;

    /* Processor names: one per emulated host. */
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    char* names = NULL;
    if (rank == 0) names = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    int distinct = 0;
    if (rank == 0) {
        for (int r = 0; r < size; ++r) {
            int seen = 0;
            for (int q = 0; q < r && !seen; ++q)
                seen = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                              names + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0;
            if (!seen) ++distinct;
        }
    }

    static const int counts[] = {1, 3, 1000, 16384, 65536};
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    const int maxcount = counts[ncounts - 1];
    int* buf = malloc((size_t)maxcount * sizeof(int));
    int* all = malloc((size_t)maxcount * (size_t)size * sizeof(int));
    long errors = 0;
    double t0 = MPI_Wtime();
    for (int round = 0; round < rounds; ++round) {
        for (int c = 0; c < ncounts; ++c) {
            int n = counts[c];
            int root = (round + c) % size;
            /* Bcast */
            for (int i = 0; i < n; ++i) buf[i] = rank == root ? value(round, root, i) : -1;
            MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; ++i) errors += buf[i] != value(round, root, i);
            /* Scatter: rank r gets block r */
            if (rank == root)
                for (long i = 0; i < (long)n * size; ++i) all[i] = value(round, root, (int)i);
            for (int i = 0; i < n; ++i) buf[i] = -1;
            MPI_Scatter(all, n, MPI_INT, buf, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; ++i) errors += buf[i] != value(round, root, rank * n + i);
        }
    }
    double elapsed = MPI_Wtime() - t0;
    long total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        if (total != 0) {
            fprintf(stderr, "coll_check: FAILED: %ld wrong elements\n", total);
            ok = 0;
        }
        if (expect_hosts > 0 && distinct != expect_hosts) {
            fprintf(stderr, "coll_check: FAILED: %d distinct processor names, expected %d\n",
                    distinct, expect_hosts);
            ok = 0;
        }
        if (ok)
            printf("coll_check: OK ranks=%d hosts=%d rounds=%d time=%.3fs first=%s last=%s\n", size,
                   distinct, rounds, elapsed, names,
                   names + (size_t)(size - 1) * MPI_MAX_PROCESSOR_NAME);
        fflush(stdout);
        fflush(stderr);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 1);
    free(buf);
    free(all);
    free(names);
    MPI_Finalize();
    return 0;
}
