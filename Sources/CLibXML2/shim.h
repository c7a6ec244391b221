#include <libxml/HTMLparser.h>
