/* generated from chapters/01-shape.nw, chapters/06-kv-cache.nw, chapters/25-hardening.nw; edit the book, not this file */
#ifndef MHA_STATUS_H
#define MHA_STATUS_H
/* The status codes every fallible call returns (conventions: mha.h). */
/* <<[[mha_status.h]] the [[MHA_MUST_CHECK]] attribute>> */
#if defined(__GNUC__) || defined(__clang__)
#define MHA_MUST_CHECK __attribute__((warn_unused_result))
#else
#define MHA_MUST_CHECK
#endif
/* <<[[mha_status.h]] status codes>> */
typedef enum mha_status {
    MHA_OK = 0,
    MHA_ERR_NULL,       /* a required pointer is NULL */
    MHA_ERR_SHAPE,      /* a size is zero, or two sizes disagree */
    MHA_ERR_HEADS,      /* H is not a positive divisor of E */
    MHA_ERR_OVERFLOW,   /* a size computation overflows size_t */
    MHA_ERR_NOMEM,      /* malloc failed */
    MHA_ERR_IO,         /* a file could not be opened, read or written */
    MHA_ERR_FORMAT,     /* a file is not what it claims to be */
    MHA_ERR_ARG,        /* an argument is out of its documented range */
    /* <<[[mha_status]] codes added by later chapters>> */
    /* <<[[mha_status]] codes added by later chapters>> */
    MHA_ERR_CACHE_FULL, /* an append would pass the cache's capacity */
    /* <<[[mha_status]] codes added by later chapters>> */
    MHA_ERR_RANGE,      /* finite inputs gave an infinite or NaN result */
    MHA_STATUS_COUNT
} mha_status;
/* <<[[mha_status.h]] status codes>> */
/* A sentence for status; "unknown status" for a value outside the enum. */
const char *mha_status_message(mha_status status);

#endif
