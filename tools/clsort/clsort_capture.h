/* clsort_capture.h - clsort's stderr: its message sink, which erases the progress line before a
 * message, and the capture of what the OpenCL runtime writes on descriptor 2 meanwhile. It sits
 * above clsort_messages.h, clsort_progress.h and clsort_signals.h, none of which knows of it. */
#ifndef CLSORT_CAPTURE_H
#define CLSORT_CAPTURE_H

/** Makes clsort's sink the messages' sink: each message on a line of its own after the progress
 *  line, on the original stderr while the driver's is captured. Call it first in main. */
void cli_stderr_init(void);

/** Moves descriptor 2 to a temporary capture file while the OpenCL runtime works, so that what
 *  it prints there (a compiler's "1 error generated." lines) does not flood stderr; clsort's own
 *  messages keep going to the original stderr. Best effort: nothing changes on any failure. */
void cli_capture_driver_stderr(void);

/** (Re)installs the SIGABRT handler that removes the temporary files and shows the capture when
 *  the driver aborts. The OpenCL runtime's LLVM installs its own crash handlers when it starts
 *  compiling, which would take SIGABRT first and lose both: callers install this one again after
 *  the context is made and after kernels were built. Does nothing without a capture. */
void cli_watch_aborts(void);

/** Puts descriptor 2 back and reports the capture: with -v every line, else the first line and
 *  the count of the others (issue 25: a compiler log is one line, the rest with -v). NULL-safe
 *  to call without a capture. */
void cli_release_driver_stderr(void);

#endif /* CLSORT_CAPTURE_H */
