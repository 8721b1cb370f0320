/* mpi_messages.h - clsort-mpi's sink for the messages of tools/lib (clsort_messages.h): a
 * "clsort-mpi: rank R: " prefix, and errors held back so that a failure shows as one line. */
#ifndef MPI_MESSAGES_H
#define MPI_MESSAGES_H

/** Makes this file the messages' sink, with the prefix "clsort-mpi: " for one rank and
 *  "clsort-mpi: rank R: " for several. */
void mpi_msg_set_rank(int rank, int size);

/** From now on cli_error() keeps its first message instead of printing it (the ranks agree on who
 *  reports a failure; see mpi_msg_print_held). Before this, errors print at once. */
void mpi_msg_hold_errors(void);

/** Prints the held error (or `fallback` if none was held) as one line and forgets it. */
void mpi_msg_print_held(const char *fallback);

#endif /* MPI_MESSAGES_H */
