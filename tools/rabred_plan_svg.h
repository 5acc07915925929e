/*
 * rabred-plan's picture (--svg): the data flow of one call, drawn from its
 * plans in the style of Rabenseifner's (2004) Fig. 1: one column per rank, one row per
 * step (rounds aligned by their messages), in each cell what the rank still
 * holds, arrows for the messages.  The analysis (options, listing,
 * simulator) stays in rabred_plan.c; this is the interface it calls.
 */
#ifndef RABRED_PLAN_SVG_H
#define RABRED_PLAN_SVG_H

#include <stdint.h>
#include <string.h>

#include "plan/rabred_plan.h"
#include "algorithms/rabred_table.h"

/* One call to draw.  The caller builds the plans and frees them after. */
typedef struct {
    const char *path;               /* the SVG file written */
    const char *title;              /* the call in one line, the picture's title */
    const char *description;        /* the algorithm's, wrapped under the title */
    rabred_coll_t coll;
    int p, root;                    /* p <= 32, as rabred-plan checks (bit masks) */
    int64_t count;                  /* elements per rank */
    const rabred_plan_t *plans;     /* p plans, in rank order */
} rabred_plan_svg_t;

/* Writes the picture.  Returns 0, or -1 after a message on stderr (plans
 * that cannot be drawn, out of memory, the file cannot be written). */
int rabred_plan_svg_draw(const rabred_plan_svg_t *svg);

/* ---- shared by the listing (--list, plans) and the picture ---- */

/* The buffers' names as rabred-plan prints them, in the listing and in the
 * picture's message tooltips. */
static inline const char *rabred_plan_buf_name(int buf)
{
    static const char *const names[RABRED_NBUFS] = {"INPUT", "ACC", "TMP", "TMP2"};
    return buf >= 0 && buf < RABRED_NBUFS ? names[buf] : "?";
}

/* How many characters of s make the next line of at most `width`
 * characters: up to the last space that fits, or `width` if none does. */
static inline int rabred_plan_line_take(const char *s, int width)
{
    int take = (int)strlen(s);
    if (take > width) {
        take = width;
        while (take > 0 && s[take] != ' ') {
            take--;
        }
        take = take ? take : width;
    }
    return take;
}

#endif /* RABRED_PLAN_SVG_H */
