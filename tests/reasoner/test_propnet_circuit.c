/* test_propnet_circuit.c - the circuit build on a network written by hand:
 * it runs the network it was given, and it gives up (NULL) once its
 * deadline has passed, so that the grounding budget bounds rules to
 * circuit (propnet.c then falls back to the rules engine).
 *
 * The network: one role with two moves, a and b; one state bit p.
 *   legal a <= true(p)       legal b <= not true(p)
 *   next p  <= does a        terminal <= true(p) and does-free (= true(p)) */
#include "testutil.h"

#include "reasoner/propnet_circuit.h"

enum { P_TRUE, P_FALSE, P_P, P_DOES_A, P_DOES_B, P_LEGAL_A, P_LEGAL_B, P_NEXT_P, P_TERM, N_PROPS };

static const uint8_t is_input[N_PROPS] = {[P_P] = 1, [P_DOES_A] = 1, [P_DOES_B] = 1};
/* instances: head, literals */
static const uint32_t inst_head[] = {P_LEGAL_A, P_LEGAL_B, P_NEXT_P, P_TERM};
static const uint32_t inst_lit[] = {0, 1, 2, 3, 4};
static const uint32_t lits[] = {P_P << 1, P_P << 1 | 1, P_DOES_A << 1, P_P << 1};
static const uint32_t base_prop[] = {P_P};
static const uint32_t n_moves[] = {2};
static uint32_t legal0[] = {P_LEGAL_A, P_LEGAL_B}, does0[] = {P_DOES_A, P_DOES_B};
static uint32_t *const legal_prop[] = {legal0}, *const does_prop[] = {does0};
static const uint32_t n_goals[] = {0};
static uint32_t *const goal_prop[] = {NULL};
static const uint32_t next_prop[] = {P_NEXT_P}, next_bit[] = {0};

static pn_raw_t raw_with(deadline_t d)
{
    return (pn_raw_t){
        .n_props = N_PROPS,
        .is_input = is_input,
        .n_inst = 4,
        .inst_head = inst_head,
        .inst_lit = inst_lit,
        .lits = lits,
        .n_base = 1,
        .n_words = 1,
        .base_prop = base_prop,
        .n_roles = 1,
        .n_moves = n_moves,
        .legal_prop = legal_prop,
        .does_prop = does_prop,
        .n_goals = n_goals,
        .goal_prop = goal_prop,
        .terminal_prop = P_TERM,
        .n_next = 1,
        .next_prop = next_prop,
        .next_bit = next_bit,
        .n_init = 0,
        .init_bits = NULL,
        .deadline = d,
    };
}

static void test_build_runs_the_network(void **state)
{
    (void)state;
    pn_raw_t raw = raw_with(deadline_none());
    pn_circuit_t *c = pn_circuit_build(&raw);
    assert_non_null(c);
    pn_run_t *x = pn_run_new(c);
    const move_id_t *mv;
    for (uint32_t p = 0; p < 2; p++) {
        uint32_t bits = p;
        pn_run_set_state(x, &bits, true);
        assert_int_equal(pn_run_terminal(x), p == 1);
        assert_int_equal(pn_run_legal(x, 0, &mv), 1);
        assert_int_equal(mv[0], p ? 0 : 1); /* a when p holds, else b */
        for (move_id_t m = 0; m < 2; m++) {
            uint32_t out = 0xffffffffu;
            pn_run_set_state(x, &bits, true);
            pn_run_next(x, &m, &out);
            assert_int_equal(out & 1u, m == 0); /* p next iff a was played */
        }
    }
    pn_run_free(x);
    pn_circuit_free(c);
}

static void test_build_gives_up_past_its_deadline(void **state)
{
    (void)state;
    pn_raw_t raw = raw_with(deadline_at_ns(1)); /* long passed */
    assert_null(pn_circuit_build(&raw));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_runs_the_network),
        cmocka_unit_test(test_build_gives_up_past_its_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
