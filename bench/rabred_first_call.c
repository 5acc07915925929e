/*
 * rabred_first_call: what rabred does before a communicator's first
 * MPI_Allreduce / MPI_Reduce can run, timed at sizes no test machine has
 * ranks for (no MPI: the same pure code the component runs).
 *
 * For p ranks a first call prices the algorithms (once per communicator
 * size: the component shares its price books, rabred_model.h), chooses
 * (rabred_select.h) and builds this rank's plan with its schedule
 * (rabred_prepared.h), under the built-in model between nodes (whose
 * structural terms build each algorithm's plan for a few ranks).  Printed
 * per p and message size: the first
 * communicator of that size (book filled), a later one (book shared), and
 * the price of one selection alone; microseconds, best of --repeats.  The
 * settings check of a first call (one 32-byte allreduce, lg p messages) is
 * communication, not preparation, and is not in these numbers.
 *
 * Then the books of communicators whose ranks share nodes (16 per node,
 * block placement), priced by the two-level simulator once per map
 * (rabred_pricebooks_get_nodes), each collective apart, seconds: between
 * nodes the emulated cluster's TCP link (latency, bandwidth and send
 * buffer from bench/profiles/emulated-100mbit.conf), with its send buffer
 * and without (MPI_Reduce then samples what the buffer saves).
 *
 * With --shared-ports 1 the link between nodes shares itself among a
 * rank's messages in flight and pays nine tenths of its latency at once
 * (rabred_link_units_t.shared_ports, wire_us): every plan the simulator
 * can run is then priced by it, in that mode.
 *
 *   bench/rabred_first_call [--repeats N] [--max-p P] [--shared-ports 0|1]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/rabred_table.h"
#include "select/rabred_model.h"
#include "select/rabred_prepared.h"
#include "select/rabred_select.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int g_shared_ports; /* --shared-ports */

/* The link between nodes: `link`, sharing and overlapping with --shared-ports. */
static rabred_model_t inter_model(rabred_link_units_t link)
{
    if (g_shared_ports) {
        link.shared_ports = 1;
        link.wire_us = 0.9 * link.alpha_us;
    }
    return rabred_model_make(&link, RABRED_DEFAULT_REDUCE_MBS, RABRED_DEFAULT_ROUND_SYNC_US);
}

typedef struct {
    rabred_coll_t coll;
    int p;
    int64_t bytes;
} shape_t;

/* A first call: the book (filled unless `books` has it), the choice and
 * rank 1's plan.  Returns seconds, or < 0 on an error. */
static double prepare(const shape_t *s, rabred_pricebooks_t *books, rabred_ready_plan_t *r)
{
    rabred_model_t model = inter_model(rabred_default_inter);
    double t0 = now();
    const rabred_pricebook_t *book = NULL;
    if (RABRED_OK != rabred_pricebooks_get(books, s->coll, s->p, 0, &model, &book)) {
        return -1;
    }
    int64_t count = s->bytes / 8;
    rabred_select_in_t in = {.coll = s->coll,
                             .call = {s->p, count, 1},
                             .root = RABRED_COLL_REDUCE == s->coll ? 0 : -1,
                             .bytes = s->bytes,
                             .forced = RABRED_ALG_AUTO,
                             .book = book};
    rabred_choice_t choice;
    if (RABRED_OK != rabred_select(&in, &choice) || NULL == choice.alg) {
        return -1;
    }
    rabred_plan_args_t args = {s->p, 1, in.root, count, 1, 0, NULL, 0, NULL};
    if (RABRED_OK != rabred_ready_plan_build(r, choice.alg, &args, NULL)) {
        return -1;
    }
    return now() - t0;
}

/* The emulated cluster's link between nodes (its profile's alpha_us,
 * mbs and send_buffer_bytes; the other terms the built-in defaults). */
static rabred_model_t cluster_link(double send_buffer_bytes)
{
    rabred_link_units_t link = rabred_default_inter;
    link.alpha_us = 6.396;
    link.mbs = 11.6004;
    link.send_buffer_bytes = send_buffer_bytes;
    return inter_model(link);
}

/* Seconds to fill a two-level book for `coll` at p ranks, 16 per node. */
static double two_level_book(rabred_coll_t coll, int p, double send_buffer_bytes)
{
    rabred_model_t inter = cluster_link(send_buffer_bytes);
    rabred_model_t intra = rabred_model_make(&rabred_default_intra, RABRED_DEFAULT_REDUCE_MBS,
                                             RABRED_DEFAULT_ROUND_SYNC_US);
    int32_t *node_of = malloc((size_t)p * sizeof(int32_t));
    if (NULL == node_of) {
        return -1;
    }
    for (int i = 0; i < p; i++) {
        node_of[i] = i / 16;
    }
    rabred_nodes_t nodes = {p / 16, node_of, NULL, NULL};
    rabred_pricebooks_t books = {0};
    const rabred_pricebook_t *book = NULL;
    double t0 = now();
    int rc = rabred_pricebooks_get_nodes(&books, coll, p, 0, &inter, &intra, &nodes, &book);
    double t = now() - t0;
    rabred_pricebooks_free(&books);
    free(node_of);
    return RABRED_OK == rc ? t : -1;
}

static void print_two_level(int max_p)
{
    const int ps[] = {128, 1024};
    const double buffers[] = {0, 1270647};
    printf("\n# two-level books, 16 ranks per node, the emulated cluster's link between "
           "nodes: seconds\n\n"
           "| collective | p | send buffer (bytes) | book |\n|:---|---:|---:|---:|\n");
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]) && ps[j] <= max_p; j++) {
            for (size_t b = 0; b < sizeof(buffers) / sizeof(buffers[0]); b++) {
                printf("| %s | %d | %.0f | %.3f |\n", rabred_coll_name((rabred_coll_t)coll),
                       ps[j], buffers[b], two_level_book((rabred_coll_t)coll, ps[j], buffers[b]));
            }
        }
    }
}

static double best_of(int repeats, const shape_t *s, int fresh_books, rabred_ready_plan_t *r)
{
    double best = 1e9;
    rabred_pricebooks_t shared = {0};
    for (int k = 0; k < repeats; k++) {
        rabred_pricebooks_t fresh = {0};
        double t = prepare(s, fresh_books ? &fresh : &shared, r);
        rabred_pricebooks_free(&fresh);
        if (t < 0) {
            best = -1;
            break;
        }
        best = t < best ? t : best;
    }
    rabred_pricebooks_free(&shared);
    return best;
}

int main(int argc, char **argv)
{
    int repeats = 5, max_p = 16384;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--repeats")) {
            repeats = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--max-p")) {
            max_p = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--shared-ports")) {
            g_shared_ports = atoi(argv[i + 1]);
        }
    }
    if (repeats < 1 || max_p < 2 || argc % 2 == 0) {
        fprintf(stderr, "usage: rabred_first_call [--repeats N] [--max-p P] [--shared-ports 0|1]\n");
        return 2;
    }
    const int64_t sizes[] = {8, 65536, 16 << 20};
    const int ps[] = {2, 16, 64, 256, 1024, 4096, 16384, 65536};
    rabred_ready_plan_t r;
    memset(&r, 0, sizeof(r));
    printf("# rabred_first_call: preparing a communicator's first call (price book, choice, "
           "rank 1's plan and schedule), us, best of %d\n\n"
           "| collective | p | bytes | first of its size | later ones | chosen |\n"
           "|:---|---:|---:|---:|---:|:---|\n", repeats);
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]) && ps[j] <= max_p; j++) {
            int p = ps[j];
            for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
                shape_t s = {(rabred_coll_t)coll, p, sizes[k]};
                double first = best_of(repeats, &s, 1, &r);
                double later = best_of(repeats, &s, 0, &r);
                printf("| %s | %d | %lld | %.1f | %.1f | %s |\n", rabred_coll_name(s.coll), p,
                       (long long)s.bytes, 1e6 * first, 1e6 * later,
                       NULL != r.alg ? r.alg->name : "-");
            }
        }
    }
    rabred_ready_plan_free(&r);
    print_two_level(max_p);
    return 0;
}
