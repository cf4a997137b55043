// Placeholder: implemented by the reader/decode work.
#include "loader/dataset.h"
