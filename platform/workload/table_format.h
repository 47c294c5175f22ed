// Text of the tables the workloads write (decode table, sweep): numbers
// with a fixed number of decimals, and Markdown and CSV cells. Everything
// goes through snprintf in the C locale's format, so the tables are the
// same bytes on every machine.
#pragma once

#include <string>

namespace pccx::workload {

std::string fixed(double v, int decimals);
// An integer when the value is one, else one decimal.
std::string count_text(double v);
// A Markdown table cell: '|' escaped, line breaks as spaces.
std::string md_cell(const std::string& s);
// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& s);

}  // namespace pccx::workload
