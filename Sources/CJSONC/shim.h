#ifndef FMPLAY_CJSONC_SHIM_H
#define FMPLAY_CJSONC_SHIM_H
#include <json-c/json.h>
#endif
