/* progress.c - see progress.h. */
#include "player/cli/progress.h"

#include <stdio.h>

#include "base/clock.h"

/* "1:02:03" or "2:03" */
static void put_duration(double s, FILE *out)
{
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600) fprintf(out, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else fprintf(out, "%lu:%02lu", t / 60, t % 60);
}

void progress_draw(progress_t *pr)
{
    uint64_t now = clock_now_ns();
    bool last = pr->done == pr->total;
    if (!pr->tty && !last && pr->done > pr->resumed && now - pr->last_ns < pr->every_ns) return;
    pr->last_ns = now;
    double elapsed = (double)(now - pr->start_ns) / 1e9;
    uint32_t played = pr->done - pr->resumed;
    const char *label = pr->label ? pr->label : "";
    if (pr->tty) {
        const uint32_t width = 30;
        uint32_t fill = (uint32_t)((uint64_t)pr->done * width / (pr->total ? pr->total : 1));
        fprintf(stderr, "\r%s[", label);
        for (uint32_t i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
        fprintf(stderr, "] %u/%u  ", pr->done, pr->total);
        if (pr->wdl) fprintf(stderr, "W %u D %u L %u  ", pr->w, pr->d, pr->l);
    } else {
        fprintf(stderr, "ggp %s: %s%u/%u games", pr->cmd, label, pr->done, pr->total);
        if (pr->wdl) fprintf(stderr, " (W %u D %u L %u)", pr->w, pr->d, pr->l);
        fputs(", ", stderr);
    }
    put_duration(elapsed, stderr);
    fputs(" elapsed", stderr);
    if (!last && played) {
        fputs(", eta ", stderr);
        put_duration(elapsed / played * (pr->total - pr->done), stderr);
    }
    fputs(pr->tty && !last ? "   " : "\n", stderr);
    fflush(stderr);
}
