#pragma once

// Without this hnswlib compiles its SSE code, whose prefetches read one link past the end
// of an upper-layer link list (AddressSanitizer flags it); our distance is our own anyway.
// Every file that includes hnswlib includes it through here, so all see one definition.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>
