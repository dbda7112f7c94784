/* hidden_layer (MPI) - the hidden layer of seed 001 (normalize, weigh,
 * activate) on 1e8 neurons spread over the ranks of an MPI job, and a
 * global reduction of the activations:
 *
 *     mpirun -np 4 ./hidden_layer            (1e8 neurons)
 *     mpirun -np 2 ./hidden_layer --n 200000
 *
 * Each rank owns a block of the neurons (ufn_mpi_rows), generates its own
 * inputs (neuron i's greyscale and weight depend on i alone, so any number
 * of ranks computes the same layer), and runs the three ufuncs on arrays
 * sharded over its devices: with no communication.  Then the activations'
 * sum and largest magnitude are reduced across ranks with MPI operators
 * made from two ufuncs of samples/mpi/reduce.ufn (ufn_mpi_allreduce).
 *
 * The devices: when UFN_DEVICES is not set, the ranks on one node share
 * its GPUs out, a block each (one rank per GPU, or one rank with all of
 * them), so `mpirun -np 8` on an 8-GPU node gives each rank its own GPU.
 *
 * Checked on every rank: each activation against libm in double, and the
 * reduced sum against the sum in double of all of them (MPI_SUM).  Exit
 * status 0 when right on every rank, 1 when not, 2 when a call failed.
 */
#include <mpi.h>

#include <ufn_mpi.h>

#include "hidden_layer.h"
#include "reduce.h"
#include "sample.h"

/* Neuron i's inputs, from i alone. */
static void inputs(int64_t i, float *grey, float *weight)
{
    sample_rng rng = { 0x5eed0001ull ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull) };
    *grey = floorf((float)sample_uniform(&rng, 0, 255));
    *weight = (float)(0.5 + 0.1 * sample_normal(&rng));
}

/* The node's GPUs shared out among the node's ranks, a block each. */
static void pick_devices(void)
{
    const char *env = getenv("UFN_DEVICES");
    if (env && *env)
        return;
    MPI_Comm node;
    int local = 0, locals = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &locals);
    MPI_Comm_free(&node);
    int gpus = ufn_device_count();
    if (gpus <= 1)
        return;
    int64_t first = 0, count = 0;
    ufn_block_range(gpus, locals, local, &first, &count);
    int ordinals[64], n = 0;
    for (int64_t d = first; d < first + count && n < 64; d++)
        ordinals[n++] = (int)d;
    if (n == 0)   /* more ranks than GPUs: they take turns */
        ordinals[n++] = local % gpus;
    SAMPLE_CALL(ufn_set_devices(ordinals, n));
}

/* A 0-d result's value. */
static float value_of(ufn_array *r)
{
    float v = 0;
    int64_t one = 1;
    ufn_array h = ufn_host(&v, UFN_FLOAT32, 0, &one);
    SAMPLE_CALL(ufn_copy_to_host(r, &h));
    ufn_free(r);
    return v;
}

int main(int argc, char **argv)
{
    int64_t total = 100000000;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--n") == 0)
            total = strtoll(argv[++i], NULL, 10);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    pick_devices();

    /* this rank's neurons: n from `first` */
    int64_t first = 0, n = 0;
    SAMPLE_CALL(ufn_mpi_rows(total, MPI_COMM_WORLD, &first, &n));
    float *grey = malloc(sizeof(float) * (size_t)(n ? n : 1));
    float *weights = malloc(sizeof(float) * (size_t)(n ? n : 1));
    float *activated = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (!grey || !weights || !activated) {
        fprintf(stderr, "hidden_layer: rank %d: out of memory for %lld neurons\n", rank,
                (long long)n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int64_t i = 0; i < n; i++)
        inputs(first + i, &grey[i], &weights[i]);

    /* the layer on this rank's devices: no communication */
    ufn_array grey_h = ufn_host(grey, UFN_FLOAT32, 1, &n);
    ufn_array weights_h = ufn_host(weights, UFN_FLOAT32, 1, &n);
    ufn_array grey_d, weights_d, normalized_d, weighted_d, activated_d;
    SAMPLE_CALL(ufn_to_device_sharded(&grey_h, &grey_d));
    SAMPLE_CALL(ufn_to_device_sharded(&weights_h, &weights_d));
    SAMPLE_CALL(ufn_device_array_sharded(UFN_FLOAT32, 1, &n, &normalized_d));
    SAMPLE_CALL(ufn_device_array_sharded(UFN_FLOAT32, 1, &n, &weighted_d));
    SAMPLE_CALL(ufn_device_array_sharded(UFN_FLOAT32, 1, &n, &activated_d));
    SAMPLE_CALL(gpu_normalize(&grey_d, &normalized_d));
    SAMPLE_CALL(gpu_weigh(&normalized_d, &weights_d, &weighted_d));
    SAMPLE_CALL(gpu_activate(&weighted_d, &activated_d));

    /* the global reductions: every rank gets both */
    double t0 = MPI_Wtime();
    ufn_array sum_d = { 0 }, max_d = { 0 };
    SAMPLE_CALL(ufn_mpi_allreduce(add, &activated_d, &sum_d, MPI_COMM_WORLD));
    SAMPLE_CALL(ufn_mpi_allreduce(max_abs, &activated_d, &max_d, MPI_COMM_WORLD));
    double reduce_s = MPI_Wtime() - t0;
    float sum = value_of(&sum_d), largest = value_of(&max_d);

    ufn_array activated_h = ufn_host(activated, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(ufn_copy_to_host(&activated_d, &activated_h));
    ufn_free(&grey_d);
    ufn_free(&weights_d);
    ufn_free(&normalized_d);
    ufn_free(&weighted_d);
    ufn_free(&activated_d);

    /* the check: samples/hidden_layer.c's tolerance for each activation;
     * the sum to a float32 sum's rounding (pairwise: a few ulps of the
     * sum of magnitudes), the largest magnitude exactly */
    long bad = 0;
    double local[2] = { 0, 0 }, global[2];
    float my_largest = 0;
    for (int64_t i = 0; i < n; i++) {
        float normalized = (float)((double)grey[i] / 255);
        double w = normalized * weights[i], e = exp(w), f = exp(-w), want = (e - f) / (e + f);
        if (!(fabs(activated[i] - want) <= 8 * FLT_EPSILON * (1 + fabs(want))))
            bad++;
        local[0] += activated[i];
        local[1] += fabs(activated[i]);
        my_largest = fmaxf(my_largest, fabsf(activated[i]));
    }
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    float want_largest = 0;
    MPI_Allreduce(&my_largest, &want_largest, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
    if (!(fabs(sum - global[0]) <= 1e-5 * global[1]))
        bad++;
    if (largest != want_largest)
        bad++;
    long all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hidden_layer: %lld neurons over %d ranks on the %s backend\n", (long long)total,
               ranks, ufn_backend());
        printf("  sum of activations %.9g (in double %.9g), largest |activation| %.9g\n", sum,
               global[0], largest);
        printf("  the two reductions across ranks took %.3f ms\n", reduce_s * 1e3);
        printf("hidden_layer: %s (%ld wrong)\n", all_bad ? "FAILED" : "ok", all_bad);
    }
    free(grey);
    free(weights);
    free(activated);
    MPI_Finalize();
    return all_bad != 0;
}
