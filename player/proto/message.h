/* message.h - GGP match-protocol messages: parsing request bodies.
 *
 * A request body is one S-expression read with the KIF reader (gdl/sexpr.h),
 * so comments, any whitespace and any atom characters are accepted as in
 * rule files. Head words are compared case-insensitively (GGP-Base sends
 * `START`, Stanford writes `start`, Dresden upper-cases whole messages;
 * shared/docs/gdl-protocol.md §5.2). The match id is kept byte for byte
 * and compared exactly (§1.3: "an opaque string"). Moves are kept as the
 * raw text of each list item, so that the reasoner parses them in its own
 * vocabulary (game_move_from_text) and the request symtab is never shared
 * with a running search.
 *
 * Anything that is not a well-formed message is refused with a one-line
 * reason; the parser never aborts on input and bounds what it keeps by the
 * size of the body. */
#ifndef GGP_PLAYER_PROTO_MESSAGE_H
#define GGP_PLAYER_PROTO_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "gdl/sexpr.h"
#include "gdl/symbols.h"

typedef enum {
    MSG_INFO,    /* (info) */
    MSG_PING,    /* (ping): older Stanford form of INFO */
    MSG_PREVIEW, /* (preview (rules) clock) */
    MSG_START,   /* (start id role (rules) startclock playclock) */
    MSG_PLAY,    /* (play id moves) */
    MSG_STOP,    /* (stop id moves) */
    MSG_ABORT    /* (abort id) */
} msg_kind_t;

/* Clocks above this many seconds are refused (a day is already absurd). */
#define MSG_MAX_CLOCK_S 86400u

typedef struct ggp_msg {
    msg_kind_t kind;
    /* What the body was parsed into; owned by the message. A START hands
     * them to the rules loader with ggp_msg_take_rules(). */
    arena_t *arena;
    symtab_t *syms;
    src_t *src;
    char *match_id;       /* START/PLAY/STOP/ABORT: exact bytes */
    char *role;           /* START: exact bytes */
    const sexpr_t *rules; /* START/PREVIEW: the list of rule forms */
    uint32_t start_clock; /* START: seconds; PREVIEW: the preview clock */
    uint32_t play_clock;  /* START: seconds */
    bool moves_nil;       /* PLAY/STOP: the moves slot is an atom (NIL) */
    uint32_t n_moves;     /* PLAY/STOP: number of moves in the list */
    char **moves;         /* PLAY/STOP: raw text of each move */
} ggp_msg_t;

/* Parse a request body. On success fills *m (free with ggp_msg_free) and
 * returns true; on failure returns false with a one-line reason in err and
 * nothing to free. */
bool ggp_msg_parse(const char *body, size_t len, ggp_msg_t *m, char *err, size_t err_len);
void ggp_msg_free(ggp_msg_t *m);
/* Move the parse (arena, symtab, source) out of a START so that the rules
 * program built from m->rules can outlive the message; m->rules stays
 * valid as long as the taken arena lives. */
void ggp_msg_take(ggp_msg_t *m, arena_t **arena, symtab_t **syms, src_t **src);

/* A short KIF text parsed on its own (a reply, an INFO answer): errors are
 * only counted. */
typedef struct kif_text {
    arena_t *arena;
    symtab_t *syms;
    src_t *src;
    sexpr_t **forms;
    size_t n;
    unsigned errors;
} kif_text_t;
void kif_text_parse(kif_text_t *k, const char *name, const char *text, size_t len);
void kif_text_free(kif_text_t *k);

/* Diagnostics written to memory, without source lines (a message is one
 * long line), so that the first error can become a one-line reason. */
typedef struct diag_capture {
    diag_t d;
    char *text; /* after diag_capture_close: everything written (malloc'd) */
    size_t len;
} diag_capture_t;
void diag_capture_open(diag_capture_t *c, unsigned max_errors);
/* Close the stream; c->text holds the text (free it). */
void diag_capture_close(diag_capture_t *c);
/* "PREFIX: <the first error's message>" from diagnostics text. */
void diag_first_error(const char *text, const char *prefix, char *out, size_t out_len);

/* Text of an s-expression with each atom as first spelled (the rules'
 * spelling). spaced=false gives "(mark 1 1)", spaced=true gives GGP-Base's
 * form "( mark 1 1 )" (§5.5). The result is malloc'd. */
char *ggp_sx_text(const symtab_t *st, const sexpr_t *x, bool spaced);

/* Lowercase name of a kind ("start", "play", ...). */
const char *ggp_msg_kind_name(msg_kind_t k);

#endif
