/*
 * test_results.c: the results list every comparison, check and probe run
 * gives (results.c): adding, counting, ordering, and the bound on how
 * many a report lists.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "testutil.h"

static void
test_results_helpers(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_result r = { 0 };
	size_t counts[EP_NSTATUS];

	(void)state;
	r.key = (char *)"python.pkg.numpy";
	r.status = EP_FAIL;
	r.expected = (char *)"1.26.4";
	r.message = (char *)"m";
	ep_results_add(&rs, &r);
	r.key = (char *)"stack.driver_min";
	r.status = EP_WAIVED;
	r.expected = NULL;
	ep_results_add(&rs, &r);
	r.key = (char *)"lib.cudnn.version";
	r.area = (char *)"custom";
	r.status = EP_SKIP;
	ep_results_add(&rs, &r);
	r.key = (char *)"cpu";
	r.area = NULL;
	r.status = EP_PASS;
	ep_results_add(&rs, &r);

	assert_string_equal(rs.v[0].area, "python");
	assert_string_equal(rs.v[0].expected, "1.26.4");
	assert_null(rs.v[0].actual);
	assert_null(rs.v[1].expected);
	assert_string_equal(rs.v[2].area, "custom");
	assert_string_equal(rs.v[3].area, "cpu");

	ep_results_sort(&rs);
	assert_string_equal(rs.v[0].key, "cpu");
	assert_string_equal(rs.v[1].key, "lib.cudnn.version"); /* custom */
	assert_string_equal(rs.v[2].key, "python.pkg.numpy");
	assert_string_equal(rs.v[3].key, "stack.driver_min");

	ep_results_count(&rs, counts);
	assert_int_equal(counts[EP_PASS], 1);
	assert_int_equal(counts[EP_FAIL], 1);
	assert_int_equal(counts[EP_SKIP], 1);
	assert_int_equal(counts[EP_WAIVED], 1);
	assert_int_equal(counts[EP_ERROR], 0);
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);
	rs.v[2].status = EP_WAIVED;
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	rs.v[2].status = EP_ERROR;
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);

	assert_string_equal(ep_status_name(EP_PASS), "pass");
	assert_string_equal(ep_status_name(EP_FAIL), "fail");
	assert_string_equal(ep_status_name(EP_SKIP), "skip");
	assert_string_equal(ep_status_name(EP_WAIVED), "waived");
	assert_string_equal(ep_status_name(EP_ERROR), "error");
	ep_results_clear(&rs);
	assert_int_equal(rs.n, 0);
	ep_results_clear(&rs);
}

/* A report keeps the most important results, in their order. */
static void
test_results_truncate(void **state)
{
	static const int st[] = { EP_PASS, EP_FAIL, EP_PASS, EP_SKIP,
	    EP_ERROR, EP_PASS, EP_WAIVED, EP_FAIL };
	struct ep_results rs = { 0 };
	struct ep_result r = { 0 };
	size_t om[EP_NSTATUS];
	char key[32];

	(void)state;
	for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
		snprintf(key, sizeof key, "k.%zu", i);
		r.key = key;
		r.status = st[i];
		ep_results_add(&rs, &r);
	}
	ep_results_truncate(&rs, 8, om);
	assert_int_equal(rs.n, 8);
	ep_results_truncate(&rs, 4, om);
	assert_int_equal(rs.n, 4);
	/* error, both failures, the waiver; in their order. */
	assert_string_equal(rs.v[0].key, "k.1");
	assert_string_equal(rs.v[1].key, "k.4");
	assert_string_equal(rs.v[2].key, "k.6");
	assert_string_equal(rs.v[3].key, "k.7");
	assert_int_equal(om[EP_PASS], 3);
	assert_int_equal(om[EP_SKIP], 1);
	assert_int_equal(om[EP_FAIL], 0);
	ep_results_clear(&rs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_helpers),
		cmocka_unit_test(test_results_truncate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
