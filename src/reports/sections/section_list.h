// The sections of `rtrace report`, in report order: one line per section, each defined by the
// file of the same name in this folder as `ReportSection NAME_section()`. Included with
// RTRACE_REPORT_SECTION defined (section_table.cpp).
RTRACE_REPORT_SECTION(process)
RTRACE_REPORT_SECTION(range)
RTRACE_REPORT_SECTION(totals)
RTRACE_REPORT_SECTION(peaks)
RTRACE_REPORT_SECTION(leaks)
RTRACE_REPORT_SECTION(leaks_by_kind)
RTRACE_REPORT_SECTION(allocation_sites)
RTRACE_REPORT_SECTION(mismatched_releases)
RTRACE_REPORT_SECTION(most_allocating)
RTRACE_REPORT_SECTION(temporary)
RTRACE_REPORT_SECTION(histogram)
RTRACE_REPORT_SECTION(checkpoints)
RTRACE_REPORT_SECTION(heap)
RTRACE_REPORT_SECTION(pagemap)
RTRACE_REPORT_SECTION(diff)
RTRACE_REPORT_SECTION(leak_summary)
