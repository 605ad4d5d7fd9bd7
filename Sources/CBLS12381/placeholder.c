#include "CBLS12381.h"
