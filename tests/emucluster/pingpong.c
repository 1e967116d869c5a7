/* pingpong: point-to-point latency and bandwidth over the emulated links.
 *
 * Usage: pingpong [--min BYTES] [--max BYTES] [--time SECONDS] [--busy wait|pairs]
 * Ranks 0 and 1 ping-pong messages of 1 B .. 4 MiB (powers of 2 by default), each size for
 * about SECONDS (default 0.5 s, at least 5 and at most 10000 round trips, after 2 warm-up trips).
 * Rank 0 prints one line per size: bytes, round trips, one-way latency (half the round trip) as
 * median / min / p90 in microseconds, and bandwidth (bytes / median one-way time) in MB/s.
 * The other ranks, if any, load the machine the way waiting MPI ranks do:
 *   --busy wait  (default) they wait in MPI_Barrier until the measurement ends (busy polling);
 *   --busy pairs ranks 2k and 2k+1 ping-pong the same sizes among themselves at the same time.
 * Output is printed before MPI_Finalize (emucluster's workaround exits inside MPI_Finalize).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long minb = 1, maxb = 4L << 20;
    double budget = 0.5;
    int pairs = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--min") && i + 1 < argc) minb = atol(argv[++i]);
        else if (!strcmp(argv[i], "--max") && i + 1 < argc) maxb = atol(argv[++i]);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--busy") && i + 1 < argc) pairs = !strcmp(argv[++i], "pairs");
        else {
            if (rank == 0) fprintf(stderr, "pingpong: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char name[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    if (rank == 1) MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 9, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(peer, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* Who takes part: rank 0/1 always; with --busy pairs, every complete pair. */
    int active = rank < 2 || (pairs && (rank ^ 1) < size);
    int partner = rank ^ 1;
    int leader = (rank & 1) == 0; /* sends first */
    char* buf = malloc((size_t)maxb);
    memset(buf, rank, (size_t)maxb);
    enum { MAXTRIPS = 10000 };
    double* t = malloc(MAXTRIPS * sizeof(double));
    if (rank == 0) {
        printf("# pingpong %s <-> %s, %d ranks, others: %s\n", name, peer, size,
               size == 2 ? "none" : pairs ? "ping-pong in pairs" : "wait in MPI_Barrier");
        printf("# %10s %7s %12s %12s %12s %10s\n", "bytes", "trips", "lat_med_us", "lat_min_us",
               "lat_p90_us", "MB/s");
        fflush(stdout);
    }
    for (long n = minb; n <= maxb; n *= 2) {
        int trips = 0;
        if (active) {
            /* Rank 0 decides how many round trips fit into the budget and tells its partner
               through the messages' tag (0 = go on, 1 = stop). */
            for (int w = 0; w < 2; ++w) {
                if (leader) {
                    MPI_Send(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD);
                }
            }
            double start = MPI_Wtime();
            for (;;) {
                if (leader) {
                    int stop = trips >= MAXTRIPS ||
                               (trips >= 5 && MPI_Wtime() - start > budget);
                    double t0 = MPI_Wtime();
                    MPI_Send(buf, (int)n, MPI_CHAR, partner, stop, MPI_COMM_WORLD);
                    if (stop) break;
                    MPI_Recv(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t[trips++] = (MPI_Wtime() - t0) / 2;
                } else {
                    MPI_Status st;
                    MPI_Recv(buf, (int)n, MPI_CHAR, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                    if (st.MPI_TAG == 1) break;
                    MPI_Send(buf, (int)n, MPI_CHAR, partner, 0, MPI_COMM_WORLD);
                    ++trips;
                }
            }
        }
        MPI_Barrier(MPI_COMM_WORLD); /* idle ranks wait (poll) here meanwhile */
        if (rank == 0) {
            qsort(t, (size_t)trips, sizeof(double), cmp_double);
            double med = t[trips / 2], mn = t[0], p90 = t[(trips * 9) / 10];
            printf("  %10ld %7d %12.1f %12.1f %12.1f %10.2f\n", n, trips, med * 1e6, mn * 1e6,
                   p90 * 1e6, (double)n / med / 1e6);
            fflush(stdout);
        }
        if (n == 0) break;
    }
    free(buf);
    free(t);
    MPI_Finalize();
    return 0;
}
