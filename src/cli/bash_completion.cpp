#include "cli/bash_completion.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace rtrace::cli {
namespace {

// The completion function, the same for every command; the tables before it say what each
// command accepts. Words bash split at ':' and '=' (COMP_WORDBREAKS) are joined again first, so
// that `-e memory:fi` and `--to=fo` are read as one word each; the replies then drop what
// precedes the last such character, the part of the word readline does not replace.
constexpr std::string_view kCompletionFunction = R"BASH(
# Sets _rtrace_words and _rtrace_cword from COMP_WORDS and COMP_CWORD, the words split at ':' and
# '=' joined again.
_rtrace_join_words() {
  _rtrace_words=()
  _rtrace_cword=0
  local i word glue=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    word=${COMP_WORDS[i]}
    if ((i > 0)) && [[ $word == [:=] ]]; then
      _rtrace_words[-1]+=$word
      glue=1
    elif ((glue)); then
      _rtrace_words[-1]+=$word
      glue=0
    else
      _rtrace_words+=("$word")
    fi
    if ((i == COMP_CWORD)); then
      _rtrace_cword=$((${#_rtrace_words[@]} - 1))
    fi
  done
}

# Sets COMPREPLY to the completions of $2 by the completion spec $1: a word list, @files,
# @commands, @none, or @modules (the aliases the command, $3..., lists with -l).
_rtrace_fill() {
  local spec=$1 cur=$2 prefix='' IFS=$' \t\n'
  shift 2
  COMPREPLY=()
  case $spec in
    @files)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      ;;
    @commands)
      mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
      ;;
    @none) ;;
    @modules)
      if [[ $cur == *:* ]]; then
        prefix=${cur%:*}:
        cur=${cur##*:}
      fi
      local modules
      modules=$("$@" -l 2>/dev/null | awk 'NR > 1 && $1 !~ /^\(/ && $1 != "main" { print $1 }')
      mapfile -t COMPREPLY < <(compgen -W "$modules" -- "$cur")
      ;;
    *)
      mapfile -t COMPREPLY < <(compgen -W "$spec" -- "$cur")
      ;;
  esac
  if [[ -n $prefix ]]; then
    COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
  fi
}

_rtrace_complete() {
  local _rtrace_words _rtrace_cword
  _rtrace_join_words
  local -a words=("${_rtrace_words[@]}")
  local cword=$_rtrace_cword
  local cur=${words[cword]} key=${words[0]##*/} word value_of='' i
  local -i argument=0 ended=0
  for ((i = 1; i < cword; i++)); do
    word=${words[i]}
    if [[ -n $value_of ]]; then
      value_of=''
    elif [[ -n ${_rtrace_prefix[$key]-} ]] && ((argument > 0)); then
      : # the program's own arguments
    elif ((!ended)) && [[ $word == -- ]]; then
      ended=1
    elif ((!ended)) && [[ $word == -?* ]]; then
      if [[ $word != *=* && -n ${_rtrace_values["$key $word"]+set} ]]; then
        value_of=$word
      fi
    elif ((argument == 0 && !ended)) && [[ " ${_rtrace_subcommands[$key]-} " == *" $word "* ]]; then
      key+=" $word"
    else
      argument+=1
    fi
  done

  local -a command=("${words[0]}")
  [[ $key == *' '* ]] && command+=(${key#* })
  local spec typed=$cur
  if [[ -n $value_of ]]; then
    spec=${_rtrace_values["$key $value_of"]}
  elif [[ -n ${_rtrace_prefix[$key]-} ]] && ((argument > 0)); then
    spec=@files
  elif ((!ended)) && [[ $cur == -*=* ]]; then
    spec=${_rtrace_values["$key ${cur%%=*}"]-@none}
    cur=${cur#*=}
  elif ((!ended)) && [[ $cur == -* ]]; then
    spec=${_rtrace_options[$key]-}
  elif ((argument == 0 && !ended)) && [[ -n ${_rtrace_subcommands[$key]-} ]]; then
    spec=${_rtrace_subcommands[$key]-}
  elif [[ -n ${_rtrace_values["$key #$((argument + 1))"]+set} ]]; then
    spec=${_rtrace_values["$key #$((argument + 1))"]}
  else
    spec=${_rtrace_values["$key #*"]-@files}
  fi
  _rtrace_fill "$spec" "$cur" "${command[@]}"
  # What readline replaces: the word after its last break character (':' and '=' by default).
  local replaced=$typed
  [[ $COMP_WORDBREAKS == *:* ]] && replaced=${replaced##*:}
  [[ $COMP_WORDBREAKS == *=* ]] && replaced=${replaced##*=}
  local -i drop=$((${#typed} - ${#replaced}))
  [[ $typed == -*=* && $cur != "$typed" ]] && COMPREPLY=("${COMPREPLY[@]/#/${typed%%=*}=}")
  if ((drop > 0)); then
    for i in "${!COMPREPLY[@]}"; do
      COMPREPLY[i]=${COMPREPLY[i]:drop}
    done
  fi
}
)BASH";

// A word for the script: single-quoted, so that nothing in it is expanded.
std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, " "));
}

// The words of a fixed set, from CLI11's description of an IsMember check: "{a,b,c}".
std::vector<std::string> set_members(std::string_view description) {
  std::vector<std::string> members;
  description = description.substr(1, description.size() - 2);
  while (!description.empty()) {
    const std::size_t comma = std::min(description.find(','), description.size());
    members.emplace_back(description.substr(0, comma));
    description.remove_prefix(std::min(comma + 1, description.size()));
  }
  return members;
}

bool is_number(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const std::string_view base = std::string_view(type).substr(0, type.find(':'));
  return base == "INT" || base == "UINT" || base == "FLOAT" || base == "N" || base == "PID";
}

// What completes the value of `option`: its set's words, @modules, @none or @files.
std::string value_completion(CLI::Option& option) {
  const std::vector<std::string>& longs = option.get_lnames();
  if (std::find(longs.begin(), longs.end(), "preload") != longs.end()) {
    return "@modules";
  }
  for (int index = 0;; ++index) {
    const CLI::Validator* check = nullptr;
    try {
      check = option.get_validator(index);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string description = check->get_description();
    if (description.size() >= 2 && description.front() == '{' && description.back() == '}') {
      return joined(set_members(description));
    }
    if (description.starts_with('[')) {  // a Range: "[0 - 256]"
      return "@none";
    }
  }
  return is_number(option) ? "@none" : "@files";
}

bool hidden(const CLI::App* app) {
  return app->get_group().empty();
}

// One line of the tables: _rtrace_<table>['key']='value'.
std::string table_line(std::string_view table, const std::string& key, const std::string& value) {
  return fmt::format("_rtrace_{}[{}]={}\n", table, single_quoted(key), single_quoted(value));
}

// How an option is typed: "-x", "--long", ...
std::vector<std::string> typed_names(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& name : option.get_snames()) {
    names.push_back("-" + name);
  }
  for (const std::string& name : option.get_lnames()) {
    names.push_back("--" + name);
  }
  return names;
}

// The positional argument number `index` of `key`; the last one repeats when it takes several.
std::string positional_lines(CLI::Option& positional, const std::string& key, int index) {
  const std::string spec = value_completion(positional);
  std::string lines = table_line("values", fmt::format("{} #{}", key, index), spec);
  if (positional.get_expected_max() > 1) {
    lines += table_line("values", key + " #*", spec);
  }
  return lines;
}

// The tables' lines for `app` (typed as `key`) and its subcommands, depth first.
void describe(CLI::App& app, const std::string& key, std::string& tables) {
  const std::vector<CLI::App*> subcommands =
      app.get_subcommands([](const CLI::App* a) { return !hidden(a); });
  std::vector<std::string> options;
  int positionals = 0;
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) {
      continue;  // hidden
    }
    if (!option->nonpositional()) {
      // A prefix command's arguments are the program and its own (below).
      if (!app.get_prefix_command()) {
        tables += positional_lines(*option, key, ++positionals);
      }
      continue;
    }
    const std::vector<std::string> names = typed_names(*option);
    options.insert(options.end(), names.begin(), names.end());
    if (option->get_items_expected_max() > 0) {  // not a flag
      const std::string spec = value_completion(*option);
      for (const std::string& name : names) {
        tables += table_line("values", fmt::format("{} {}", key, name), spec);
      }
    }
  }
  if (app.get_prefix_command()) {
    tables += table_line("prefix", key, "1");
    tables += table_line("values", key + " #1", "@commands");
  }
  tables += table_line("options", key, joined(options));
  std::vector<std::string> names;
  names.reserve(subcommands.size());
  for (const CLI::App* sub : subcommands) {
    names.push_back(sub->get_name());
  }
  if (!names.empty()) {
    tables += table_line("subcommands", key, joined(names));
  }
  for (CLI::App* sub : subcommands) {
    describe(*sub, key + " " + sub->get_name(), tables);
  }
}

}  // namespace

std::string bash_completion_script(std::span<const CompletedCommand> commands) {
  std::vector<std::string> names;
  std::string tables;
  for (const CompletedCommand& command : commands) {
    names.push_back(command.name);
    describe(*command.app, command.name, tables);
  }
  return fmt::format(
      "# bash completion for {0}.\n"
      "# Generated by `rtrace completion bash` from the commands' own option definitions.\n"
      "# declare -g: bash-completion sources this file inside a function.\n"
      "declare -gA _rtrace_subcommands=() _rtrace_options=() _rtrace_values=() "
      "_rtrace_prefix=()\n"
      "{1}{2}\ncomplete -F _rtrace_complete {0}\n",
      joined(names), tables, kCompletionFunction);
}

}  // namespace rtrace::cli
