#include "tracer/unwind/cfi_rules.h"

#include <dlfcn.h>

#include <cstring>

namespace rtrace::tracer {
namespace {

// DWARF register numbers of x86-64 (System V psABI, figure 3.36).
constexpr std::uint64_t kRegRbp = 6;
constexpr std::uint64_t kRegRsp = 7;
constexpr std::uint64_t kRegReturnAddress = 16;

// Pointer encodings (DW_EH_PE_*): the low nibble is the format, bits 4-6 what it is relative to.
constexpr std::uint8_t kEncodingOmit = 0xff;
constexpr std::uint8_t kFormatMask = 0x0f;
constexpr std::uint8_t kApplicationMask = 0x70;
constexpr std::uint8_t kPcRelative = 0x10;
constexpr std::uint8_t kDataRelativeSdata4 = 0x3b;  // .eh_frame_hdr's search table
constexpr std::uint8_t kUdata4 = 0x03;

// A bounded reader over the memory of a loaded object's .eh_frame (mapped, read-only data).
class Reader {
 public:
  Reader(const std::uint8_t* at, const std::uint8_t* end) : at_(at), end_(end) {}

  bool ok() const { return ok_; }
  bool at_end() const { return at_ >= end_; }
  const std::uint8_t* position() const { return at_; }
  void skip(std::uint64_t bytes) {
    if (bytes > static_cast<std::uint64_t>(end_ - at_)) {
      ok_ = false;
      at_ = end_;
      return;
    }
    at_ += bytes;
  }

  template <typename T>
  T fixed() {
    T value{};
    if (static_cast<std::size_t>(end_ - at_) < sizeof value) {
      ok_ = false;
      at_ = end_;
      return value;
    }
    std::memcpy(&value, at_, sizeof value);
    at_ += sizeof value;
    return value;
  }

  std::uint64_t uleb() {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const auto byte = fixed<std::uint8_t>();
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0 || !ok_) {
        return value;
      }
    }
    ok_ = false;
    return value;
  }

  std::int64_t sleb() {
    std::uint64_t value = 0;
    unsigned shift = 0;
    std::uint8_t byte = 0;
    do {
      byte = fixed<std::uint8_t>();
      if (shift < 64) {
        value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      }
      shift += 7;
    } while ((byte & 0x80) != 0 && ok_);
    if (shift < 64 && (byte & 0x40) != 0) {
      value |= ~std::uint64_t{0} << shift;
    }
    return static_cast<std::int64_t>(value);
  }

  // An encoded pointer (only absolute and pc-relative ones: what .eh_frame uses for code).
  std::uint64_t pointer(std::uint8_t encoding) {
    const auto field = reinterpret_cast<std::uint64_t>(at_);
    const std::uint64_t value = value_of_format(encoding & kFormatMask);
    switch (encoding & kApplicationMask) {
      case 0:
        return value;
      case kPcRelative:
        return field + value;
      default:
        ok_ = false;
        return 0;
    }
  }

  // A value in the format of `encoding`, without applying it (an FDE's address range).
  std::uint64_t value_of_format(std::uint8_t format) {
    switch (format & kFormatMask) {
      case 0x00:
      case 0x04:
      case 0x0c:
        return fixed<std::uint64_t>();
      case 0x01:
        return uleb();
      case 0x02:
        return fixed<std::uint16_t>();
      case 0x03:
        return fixed<std::uint32_t>();
      case 0x09:
        return static_cast<std::uint64_t>(sleb());
      case 0x0a:
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(fixed<std::int16_t>()));
      case 0x0b:
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(fixed<std::int32_t>()));
      default:
        ok_ = false;
        return 0;
    }
  }

 private:
  const std::uint8_t* at_;
  const std::uint8_t* end_;
  bool ok_ = true;
};

// What a CIE says about the FDEs that use it.
struct CommonInfo {
  std::uint64_t code_align = 1;
  std::int64_t data_align = 1;
  std::uint8_t fde_encoding = 0;  // absolute 8-byte pointers unless 'R' says otherwise
  bool has_augmentation_data = false;
  const std::uint8_t* instructions = nullptr;
  const std::uint8_t* instructions_end = nullptr;
};

// The register rules the interpreter follows; every other register is irrelevant to a walk
// that only needs rip, rsp and rbp.
enum class Saved : std::uint8_t { Unchanged, AtOffset, Undefined, Unknown };
struct RuleState {
  std::uint64_t cfa_register = kRegRsp;
  std::int64_t cfa_offset = 8;
  Saved rbp = Saved::Unchanged;
  std::int64_t rbp_offset = 0;
  Saved return_address = Saved::Unknown;
  std::int64_t return_address_offset = 0;
};

// An entry in the (one-entry-per-FDE) .eh_frame record: its length and contents.
bool record_bounds(const std::uint8_t* record, const std::uint8_t** body,
                   const std::uint8_t** end) {
  std::uint32_t length = 0;
  std::memcpy(&length, record, sizeof length);
  if (length == 0 || length == 0xffffffff) {
    return false;  // a terminator, or the 64-bit form, which x86-64 compilers never emit
  }
  *body = record + 4;
  *end = record + 4 + length;
  return true;
}

bool read_common_info(const std::uint8_t* cie, CommonInfo& info) {
  const std::uint8_t* body = nullptr;
  const std::uint8_t* end = nullptr;
  if (!record_bounds(cie, &body, &end)) {
    return false;
  }
  Reader reader(body, end);
  if (reader.fixed<std::uint32_t>() != 0) {
    return false;  // not a CIE
  }
  const auto version = reader.fixed<std::uint8_t>();
  if (version != 1 && version != 3) {
    return false;
  }
  const auto* augmentation = reinterpret_cast<const char*>(reader.position());
  const std::size_t augmentation_length =
      ::strnlen(augmentation, static_cast<std::size_t>(end - reader.position()));
  reader.skip(augmentation_length + 1);
  info.code_align = reader.uleb();
  info.data_align = reader.sleb();
  const std::uint64_t return_register = version == 1 ? reader.fixed<std::uint8_t>() : reader.uleb();
  if (!reader.ok() || return_register != kRegReturnAddress) {
    return false;
  }
  if (augmentation_length > 0) {
    if (augmentation[0] != 'z') {
      return false;  // "eh" and other ancient forms
    }
    info.has_augmentation_data = true;
    const std::uint64_t data_length = reader.uleb();
    const std::uint8_t* data_end = reader.position() + data_length;
    for (std::size_t i = 1; i < augmentation_length && reader.ok(); ++i) {
      switch (augmentation[i]) {
        case 'R':
          info.fde_encoding = reader.fixed<std::uint8_t>();
          break;
        case 'L':
          reader.fixed<std::uint8_t>();
          break;
        case 'P': {
          const auto encoding = reader.fixed<std::uint8_t>();
          if (encoding != kEncodingOmit) {
            reader.value_of_format(encoding);
          }
          break;
        }
        default:
          return false;  // 'S' (a signal frame) and anything unknown
      }
    }
    if (!reader.ok() || reader.position() > data_end) {
      return false;
    }
    reader.skip(static_cast<std::uint64_t>(data_end - reader.position()));
  }
  info.instructions = reader.position();
  info.instructions_end = end;
  return reader.ok();
}

// Runs call frame instructions until the row that covers `pc` is complete. `initial` is the
// state after the CIE's instructions (DW_CFA_restore goes back to it).
class Interpreter {
 public:
  Interpreter(const CommonInfo& info, std::uint64_t pc) : info_(info), pc_(pc) {}

  // False when an instruction is not understood.
  bool run(const std::uint8_t* from, const std::uint8_t* end, std::uint64_t location,
           RuleState& state, const RuleState& initial);

 private:
  bool offset_rule(RuleState& state, std::uint64_t reg, std::int64_t offset) {
    if (reg == kRegRbp) {
      state.rbp = Saved::AtOffset;
      state.rbp_offset = offset;
    } else if (reg == kRegReturnAddress) {
      state.return_address = Saved::AtOffset;
      state.return_address_offset = offset;
    }
    return true;
  }
  // A rule of a kind that is no offset from the CFA (register, expression, ...): fine for any
  // register the walk does not read.
  static bool other_rule(RuleState& state, std::uint64_t reg, Saved rule) {
    if (reg == kRegRbp) {
      state.rbp = rule;
    } else if (reg == kRegReturnAddress) {
      state.return_address = rule;
    } else if (reg == kRegRsp) {
      return false;  // the stack pointer is the CFA: a rule for it is beyond this interpreter
    }
    return true;
  }
  static void restore(RuleState& state, const RuleState& initial, std::uint64_t reg) {
    if (reg == kRegRbp) {
      state.rbp = initial.rbp;
      state.rbp_offset = initial.rbp_offset;
    } else if (reg == kRegReturnAddress) {
      state.return_address = initial.return_address;
      state.return_address_offset = initial.return_address_offset;
    }
  }

  static constexpr int kMaxRemembered = 8;
  const CommonInfo& info_;
  std::uint64_t pc_;
  RuleState remembered_[kMaxRemembered];
  int remembered_count_ = 0;
};

bool Interpreter::run(const std::uint8_t* from, const std::uint8_t* end, std::uint64_t location,
                      RuleState& state, const RuleState& initial) {
  Reader reader(from, end);
  while (!reader.at_end() && reader.ok()) {
    const auto opcode = reader.fixed<std::uint8_t>();
    const std::uint8_t low = opcode & 0x3f;
    std::uint64_t advance = 0;
    switch (opcode >> 6) {
      case 1:  // DW_CFA_advance_loc
        advance = low;
        break;
      case 2:  // DW_CFA_offset
        offset_rule(state, low, static_cast<std::int64_t>(reader.uleb()) * info_.data_align);
        continue;
      case 3:  // DW_CFA_restore
        restore(state, initial, low);
        continue;
      default:
        break;
    }
    if (opcode >> 6 == 0) {
      switch (opcode) {
        case 0x00:  // DW_CFA_nop
          continue;
        case 0x02:  // DW_CFA_advance_loc1
          advance = reader.fixed<std::uint8_t>();
          break;
        case 0x03:  // DW_CFA_advance_loc2
          advance = reader.fixed<std::uint16_t>();
          break;
        case 0x04:  // DW_CFA_advance_loc4
          advance = reader.fixed<std::uint32_t>();
          break;
        case 0x05: {  // DW_CFA_offset_extended
          const std::uint64_t reg = reader.uleb();
          offset_rule(state, reg, static_cast<std::int64_t>(reader.uleb()) * info_.data_align);
          continue;
        }
        case 0x06:  // DW_CFA_restore_extended
          restore(state, initial, reader.uleb());
          continue;
        case 0x07:  // DW_CFA_undefined
          if (!other_rule(state, reader.uleb(), Saved::Undefined)) {
            return false;
          }
          continue;
        case 0x08:  // DW_CFA_same_value
          if (!other_rule(state, reader.uleb(), Saved::Unchanged)) {
            return false;
          }
          continue;
        case 0x09: {  // DW_CFA_register
          const std::uint64_t reg = reader.uleb();
          reader.uleb();
          if (!other_rule(state, reg, Saved::Unknown)) {
            return false;
          }
          continue;
        }
        case 0x0a:  // DW_CFA_remember_state
          if (remembered_count_ == kMaxRemembered) {
            return false;
          }
          remembered_[remembered_count_++] = state;
          continue;
        case 0x0b:  // DW_CFA_restore_state
          if (remembered_count_ == 0) {
            return false;
          }
          state = remembered_[--remembered_count_];
          continue;
        case 0x0c:  // DW_CFA_def_cfa
          state.cfa_register = reader.uleb();
          state.cfa_offset = static_cast<std::int64_t>(reader.uleb());
          continue;
        case 0x0d:  // DW_CFA_def_cfa_register
          state.cfa_register = reader.uleb();
          continue;
        case 0x0e:  // DW_CFA_def_cfa_offset
          state.cfa_offset = static_cast<std::int64_t>(reader.uleb());
          continue;
        case 0x10:    // DW_CFA_expression
        case 0x16: {  // DW_CFA_val_expression
          const std::uint64_t reg = reader.uleb();
          reader.skip(reader.uleb());
          if (!other_rule(state, reg, Saved::Unknown)) {
            return false;
          }
          continue;
        }
        case 0x11: {  // DW_CFA_offset_extended_sf
          const std::uint64_t reg = reader.uleb();
          offset_rule(state, reg, reader.sleb() * info_.data_align);
          continue;
        }
        case 0x12:  // DW_CFA_def_cfa_sf
          state.cfa_register = reader.uleb();
          state.cfa_offset = reader.sleb() * info_.data_align;
          continue;
        case 0x13:  // DW_CFA_def_cfa_offset_sf
          state.cfa_offset = reader.sleb() * info_.data_align;
          continue;
        case 0x14:    // DW_CFA_val_offset
        case 0x15: {  // DW_CFA_val_offset_sf
          const std::uint64_t reg = reader.uleb();
          if (opcode == 0x14) {
            reader.uleb();
          } else {
            reader.sleb();
          }
          if (!other_rule(state, reg, Saved::Unknown)) {
            return false;
          }
          continue;
        }
        case 0x2e:  // DW_CFA_GNU_args_size: the CFA does not depend on it
          reader.uleb();
          continue;
        default:  // DW_CFA_set_loc, DW_CFA_def_cfa_expression, vendor extensions
          return false;
      }
    }
    location += advance * info_.code_align;
    if (location > pc_) {
      return reader.ok();  // the row that covers pc is complete
    }
  }
  return reader.ok();
}

FrameRule rule_from_state(const RuleState& state) {
  FrameRule rule;
  if (state.return_address == Saved::Undefined) {
    rule.kind = FrameRule::Kind::Outermost;
    return rule;
  }
  const bool cfa_known = state.cfa_register == kRegRsp || state.cfa_register == kRegRbp;
  const bool return_address_known =
      state.return_address == Saved::AtOffset && state.return_address_offset == -8;
  const bool rbp_known = state.rbp == Saved::Unchanged || state.rbp == Saved::AtOffset;
  if (!cfa_known || !return_address_known || !rbp_known || state.cfa_offset < INT32_MIN ||
      state.cfa_offset > INT32_MAX || state.rbp_offset < INT32_MIN ||
      state.rbp_offset > INT32_MAX) {
    return rule;
  }
  rule.kind = FrameRule::Kind::Standard;
  rule.cfa_from_rbp = state.cfa_register == kRegRbp;
  rule.cfa_offset = static_cast<std::int32_t>(state.cfa_offset);
  rule.rbp_saved = state.rbp == Saved::AtOffset;
  rule.rbp_offset = static_cast<std::int32_t>(state.rbp_offset);
  return rule;
}

// The FDE that covers `pc`, from the binary search table of the object's .eh_frame_hdr.
const std::uint8_t* find_fde(const std::uint8_t* header, std::uint64_t pc) {
  if (header[0] != 1 || header[2] != kUdata4 || header[3] != kDataRelativeSdata4) {
    return nullptr;  // no search table, or one in a form the linker does not write
  }
  Reader reader(header + 4, header + 4 + 16);
  reader.pointer(header[1]);  // eh_frame_ptr, not needed
  if (!reader.ok()) {
    return nullptr;
  }
  std::uint32_t count = 0;
  std::memcpy(&count, reader.position(), sizeof count);
  const std::uint8_t* table = reader.position() + sizeof count;
  const auto entry_location = [&](std::uint32_t index) {
    std::int32_t relative = 0;
    std::memcpy(&relative, table + std::size_t{index} * 8, sizeof relative);
    return reinterpret_cast<std::uint64_t>(header) + static_cast<std::uint64_t>(relative);
  };
  // The last entry that starts at or below pc.
  std::uint32_t low = 0;
  std::uint32_t high = count;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (entry_location(middle) <= pc) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == 0) {
    return nullptr;
  }
  std::int32_t fde = 0;
  std::memcpy(&fde, table + std::size_t{low - 1} * 8 + 4, sizeof fde);
  return header + fde;
}

FrameRule rule_from_fde(const std::uint8_t* fde, std::uint64_t pc) {
  const std::uint8_t* body = nullptr;
  const std::uint8_t* end = nullptr;
  if (!record_bounds(fde, &body, &end)) {
    return {};
  }
  Reader reader(body, end);
  const std::uint8_t* cie_pointer_field = reader.position();
  const auto cie_offset = reader.fixed<std::uint32_t>();
  if (cie_offset == 0) {
    return {};  // a CIE, not an FDE
  }
  CommonInfo info;
  if (!read_common_info(cie_pointer_field - cie_offset, info)) {
    return {};
  }
  const std::uint64_t begin = reader.pointer(info.fde_encoding);
  const std::uint64_t range = reader.value_of_format(info.fde_encoding);
  if (!reader.ok() || pc < begin || pc - begin >= range) {
    return {};  // pc is in no function the table knows (a gap between FDEs)
  }
  if (info.has_augmentation_data) {
    reader.skip(reader.uleb());
  }
  if (!reader.ok()) {
    return {};
  }
  Interpreter interpreter(info, pc);
  RuleState initial;
  if (!interpreter.run(info.instructions, info.instructions_end, 0, initial, initial)) {
    return {};
  }
  RuleState state = initial;
  if (!interpreter.run(reader.position(), end, begin, state, initial)) {
    return {};
  }
  return rule_from_state(state);
}

}  // namespace

FrameRule find_frame_rule(std::uintptr_t pc) {
  dl_find_object object{};
  // NOLINTNEXTLINE(performance-no-int-to-ptr): pc is a code address taken from the stack
  if (::_dl_find_object(reinterpret_cast<void*>(pc), &object) != 0 ||
      object.dlfo_eh_frame == nullptr) {
    return {};
  }
  const std::uint8_t* fde = find_fde(static_cast<const std::uint8_t*>(object.dlfo_eh_frame), pc);
  return fde == nullptr ? FrameRule{} : rule_from_fde(fde, pc);
}

}  // namespace rtrace::tracer
