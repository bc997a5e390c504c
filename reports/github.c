/*
 * github.c: GitHub Actions.  Workflow commands ("::error title=T::MSG")
 * turn failures into annotations on the run's page, and the Markdown
 * report is appended to the file $GITHUB_STEP_SUMMARY names, which the
 * runner shows as the job's summary.
 *
 * The commands go to standard error: the runner reads workflow commands
 * from both streams, and standard output carries the human summary only.
 * Their text is escaped as the runner unescapes it (%25, %0D, %0A; in
 * properties also %3A and %2C), after text.c has removed anything a
 * terminal would act on, so a fact's value cannot start a command of its
 * own on a new line.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "report.h"
#include "errors.h"
#include "xalloc.h"

/* GitHub shows 10 error annotations per step; past a screenful the rest
 * are in the reports. */
#define ANNOTATIONS_MAX	50

void
ep_report_annotations(FILE *f, const struct ep_results *rs)
{
	size_t n = 0, left = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *cmd, *what;
		char *title, *msg, *t, *m;

		switch (r->status) {
		case EP_FAIL:
			cmd = "error";
			what = "drift";
			break;
		case EP_ERROR:
			cmd = "error";
			what = "could not check";
			break;
		case EP_WARN:
			/* Seen, never fatal. */
			cmd = "warning";
			what = "warning";
			break;
		case EP_WAIVED:
			/* Not fatal, yet someone owns it until a date. */
			cmd = "notice";
			what = "waived";
			break;
		default:
			continue;
		}
		if (n == ANNOTATIONS_MAX) {
			left++;
			continue;
		}
		n++;
		title = xasprintf("envparity %s: %s", what, r->key);
		if (r->status == EP_FAIL)
			msg = xasprintf("%s (rule %s)", r->message != NULL ?
			    r->message : r->key, r->rule != NULL ? r->rule :
			    "(none)");
		else
			msg = xstrdup(r->message != NULL ? r->message : r->key);
		t = ep_gh_escape(title, 1);
		m = ep_gh_escape(msg, 0);
		fprintf(f, "::%s title=%s::%s\n", cmd, t, m);
		free(title);
		free(msg);
		free(t);
		free(m);
	}
	if (left > 0)
		fprintf(f, "::warning title=envparity::%zu more findings are "
		    "not annotated: see the reports\n", left);
	fflush(f);
}

int
ep_report_append(const char *path, const char *text, struct ep_err *err)
{
	struct stat st;
	char tail[2];
	const char *p = text;
	size_t len = strlen(text);
	int fd, rc = -1;

	/* Never through a link, never blocked on a FIFO (outfile.h's rule,
	 * for the one file envparity appends to). */
	if ((fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW | O_NONBLOCK, 0644)) < 0) {
		if (errno == ELOOP)
			return ep_err_set(err, EP_E_INPUT, "%s: refused: a "
			    "symbolic link (envparity never writes through "
			    "one)", path);
		if (errno == ENXIO)	/* a FIFO with no reader */
			return ep_err_set(err, EP_E_INPUT, "%s: refused: not "
			    "a regular file", path);
		return ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		ep_err_set(err, EP_E_INPUT, "%s: refused: not a regular file",
		    path);
		goto done;
	}
	if (ep_out_protected(&st, path, err) < 0)
		goto done;
	/* A blank line first, so that our heading starts a block of its
	 * own: a line of text, or an HTML block left open (<div>, <details>:
	 * only a blank line ends one), would take it in. */
	if (st.st_size > 0) {
		off_t k = st.st_size >= 2 ? 2 : 1;
		const char *gap = "\n\n";

		/* Less when the file ends with a newline, or a blank line. */
		if (pread(fd, tail, (size_t)k, st.st_size - k) == (ssize_t)k &&
		    tail[k - 1] == '\n')
			gap = k == 2 && tail[0] == '\n' ? "" : "\n";
		if (*gap != '\0' && write(fd, gap, strlen(gap)) !=
		    (ssize_t)strlen(gap))
			goto fail;
	}
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		len -= (size_t)w;
	}
	rc = 0;
	goto done;
fail:
	ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
	    strerror(errno));
	/* Never leave half a summary: cut back to what was there. */
	if (ftruncate(fd, st.st_size) < 0) {
		/* The error above is the one to report. */
	}
done:
	close(fd);
	return rc;
}
