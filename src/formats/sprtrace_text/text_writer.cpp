#include "formats/sprtrace_text/text_writer.h"
