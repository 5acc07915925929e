/*
 * Pieces of the closed-form prices (rabred_price.h) that several MPI_Allreduce
 * algorithms share.  Pure C, no MPI.
 */
#ifndef RABRED_PRICE_ALLREDUCE_H
#define RABRED_PRICE_ALLREDUCE_H

#include "algorithms/rabred_price.h"

/* One round between two peers that send each other `big` and `small` bytes
 * (big >= small): both messages run at once, so the round lasts as long as
 * the longer one.  Plans drop empty messages, and a message that nothing
 * answers from the same peer is one-way: small = 0 leaves one one-way
 * message, big = 0 none. */
static inline double rabred_price_pair(const rabred_model_t *m, double big, double small)
{
    if (small > 0) {
        return rabred_price_exchange(m, big);
    }
    return big > 0 ? rabred_price_one_way(m, big) : 0.0;
}

#endif /* RABRED_PRICE_ALLREDUCE_H */
