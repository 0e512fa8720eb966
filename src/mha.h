/* generated from chapters/01-shape.nw; edit the book, not this file */
#ifndef MHA_H
#define MHA_H
/* Multi-head attention: the library's umbrella header.
   Conventions, for every header below:
   - Arrays are row-major float32, batch first; shapes are written in the
     letters B L S E H D (batch, queries, keys, width, heads, head width
     D = E / H).  A leading dimension ld is the distance between rows.
   - The caller owns every array it passes; the library keeps no pointer past
     a call, and frees before returning whatever scratch it allocates, except
     the KV cache (mha_kv_cache_free) and saved activations (mha_saved_free).
   - Every function that can fail returns an mha_status and is MHA_MUST_CHECK;
     none prints, exits or aborts on bad input, and on an error the outputs
     hold unspecified values.
   - Building blocks marked "unchecked" trust their arguments: the versions
     that call them have checked the shape already.
   - Calls are reentrant: several threads may run them at once, on distinct
     outputs, except mha_set_isa.
   Helpers shared by the versions are in mha_internal.h, not included here. */
#include "mha_status.h"
#include "mha_shape.h"
#include "mha_products.h"
#include "mha_attend.h"
#include "mha_mask.h"
#include "mha_forward.h"
#include "mha_kv_cache.h"
#include "mha_threads.h"
#include "mha_backward.h"
#include "mha_finite.h"

#endif
