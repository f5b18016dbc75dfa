// Layout descriptions: the default one is NOTES.md's, RAW_FORMAT XML reads back what it writes,
// and a bad description is refused with the line that is wrong.
#include <gtest/gtest.h>

#include <string>

#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/layout_xml.h"
#include "io/diagnostics.h"
#include "stacktrack_test_support.h"

namespace rtrace::stacktrack::test {
namespace {

std::string offsets(const TypeLayout& type) {
  std::string out;
  for (const MemberLayout& m : type.members) {
    out += m.name + "@" + std::to_string(m.offset) + ":" + std::to_string(m.size) + " ";
  }
  return out;
}

TEST(StackTrackLayout, DefaultIsTheOneNotesPinsDown) {
  const RawLayout& l = default_layout();
  EXPECT_EQ(l.version, 100U);
  EXPECT_EQ(l.entry_size, 24U);
  EXPECT_EQ(l.payload_offset, 8U);
  EXPECT_EQ(l.payload_size, 16U);
  EXPECT_EQ(l.magic, 0x12345678U);
  EXPECT_EQ(l.flags.offset, 0U);
  EXPECT_EQ(l.flags.size, 2U);
  EXPECT_EQ(l.pid.offset, 2U);
  EXPECT_EQ(l.pid.size, 2U);
  EXPECT_EQ(l.sequence.offset, 4U);
  EXPECT_EQ(l.sequence.size, 4U);
  ASSERT_EQ(l.types.size(), 8U);
  EXPECT_EQ(offsets(*l.find_type("HIT")), "when@0:8 scopeIndex@8:2 tid@10:2 ");
  EXPECT_EQ(offsets(*l.find_type("FLOC")), "filenum@0:2 writeCount@2:2 properties@4:2 ");
  EXPECT_EQ(offsets(*l.find_type("FPROPERTY")), "filenum@0:2 writeCount@2:2 propertynum@4:2 ");
  EXPECT_EQ(offsets(*l.find_type("SLOC")),
            "scopeIndex@0:2 style@2:2 linenum@4:2 writeCount@6:2 filenum@8:2 ");
  EXPECT_EQ(offsets(*l.find_type("PROLOGUE")),
            "_12345678@0:4 version@4:4 info_len@8:1 entry_size@9:1 payload_offset@10:1 ");
  EXPECT_EQ(offsets(*l.find_type("PROCINFO")), "pid@0:2 writeCount@2:2 ");
  EXPECT_EQ(offsets(*l.find_type("TIMEINFO")), "start_hires@0:8 start@8:4 ");
  EXPECT_EQ(offsets(*l.find_type("TIMETYPE")), "tdiv@0:8 timetype@8:2 ");
  // Type indexes follow the document's declaration order; sizes as the sample's RAW_FORMAT.
  EXPECT_EQ(l.find_type("HIT")->typeindex, 0U);
  EXPECT_EQ(l.find_type("HIT")->size, 16U);
  EXPECT_EQ(l.find_type("FLOC")->size, 6U);
  EXPECT_EQ(l.find_type("TIMETYPE")->typeindex, 7U);
  EXPECT_EQ(l.rules.info_mask, 0x00FFU);
  EXPECT_EQ(l.rules.info_value, 0x00FFU);
  EXPECT_EQ(l.rules.has_info, 0x1000U);
  EXPECT_EQ(l.rules.info_end, 0x0200U);
  EXPECT_EQ(l.rules.global_bit, 0x4000U);
}

// The beginning of --show_format is the document's sample, word for word.
TEST(StackTrackLayout, ShowFormatStartsAsTheDocumentsSample) {
  const std::string xml = layout_to_xml(default_layout());
  EXPECT_TRUE(xml.starts_with(
      "<RAW_FORMAT version=\"100\" size=\"24\" payload_size=\"16\" payload_offset=\"8\" "
      "magic=\"0x12345678\" magic_raw=\"0x78563412\">\n"));
  EXPECT_NE(xml.find("<TYPE uname=\"HIT\" name=\"hit\" typeindex=\"0\" type=\"ev_hit\" "
                     "size=\"16\" followedby=\"~\" desc=\"ev_hit captures basic entry/exit/step "
                     "data\">\n"
                     "<MEMBER name=\"when\" type=\"hitime_t\" size=\"8\" offset=\"0\" "
                     "desc=\"when the hit occured\"/>\n"
                     "<MEMBER name=\"scopeIndex\" type=\"scopex_t\" size=\"2\" offset=\"8\" "
                     "desc=\"where the hit occured\"/>\n"
                     "<MEMBER name=\"tid\" type=\"st_tid_t\" size=\"2\" offset=\"10\" "
                     "desc=\"thread in which the hit occured\"/>\n"
                     "</TYPE>\n"
                     "<TYPE uname=\"FLOC\" name=\"fileloc\" typeindex=\"1\" type=\"ev_fileloc\" "
                     "size=\"6\" followedby=\"filename\" desc=\"File Location data\">\n"
                     "<MEMBER name=\"filenum\" type=\"int16\" size=\"2\" offset=\"0\" "
                     "desc=\"file index\"/>\n"),
            std::string::npos);
  EXPECT_NE(xml.find("<FLAG name=\"IS_HIT\" value=\"0x0000\"/>\n"
                     "<FLAG name=\"IS_FLOC\" value=\"0x0001\"/>\n"),
            std::string::npos);
  EXPECT_TRUE(xml.ends_with("</RAW_FORMAT>\n"));
}

TEST(StackTrackLayout, XmlReadsBackWhatItWrites) {
  const std::string xml = layout_to_xml(default_layout());
  const RawLayout back = layout_from_xml(xml, "default.xml");
  EXPECT_EQ(layout_to_xml(back), xml);
  EXPECT_EQ(back.rules.global_type_mask, 0x7000U);
  EXPECT_EQ(back.find_type("SLOC")->selector, 3U);
}

TEST(StackTrackLayout, TheOtherPlatformsDescriptionReadsBack) {
  const RawLayout wide = load_layout_file(STACKTRACK_TEST_DIR "/wide_layout.xml");
  EXPECT_EQ(wide.entry_size, 32U);
  EXPECT_EQ(wide.pid.size, 4U);
  EXPECT_EQ(wide.find_type("PROLOGUE")->selector, 8U);
  EXPECT_EQ(offsets(*wide.find_type("HIT")), "tid@0:4 scopeIndex@4:4 when@8:8 ");
  EXPECT_EQ(layout_to_xml(layout_from_xml(layout_to_xml(wide), "again")), layout_to_xml(wide));
}

// The document's own trimmed form has no HEADER and no rule flags: the defaults fill them.
TEST(StackTrackLayout, MissingHeaderAndRulesTakeTheDefaults) {
  std::string xml = layout_to_xml(default_layout());
  xml.erase(xml.find("<HEADER>"), xml.find("</HEADER>\n") + 10 - xml.find("<HEADER>"));
  xml.erase(xml.find("<FLAG name=\"TYPE_MASK\""),
            xml.find("</RAW_FORMAT>") - xml.find("<FLAG name=\"TYPE_MASK\""));
  const RawLayout back = layout_from_xml(xml, "trimmed.xml");
  EXPECT_EQ(layout_to_xml(back), layout_to_xml(default_layout()));
}

std::string load_error(const std::string& xml) {
  try {
    layout_from_xml(xml, "f.xml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(StackTrackLayout, BadDescriptionsNameTheLine) {
  const std::string good = layout_to_xml(default_layout());
  EXPECT_EQ(load_error("<RAW_FORMAT"),
            "f.xml:1: not a RAW_FORMAT description: Error parsing start element tag");
  EXPECT_EQ(load_error("<OTHER/>"),
            "f.xml:1: not a RAW_FORMAT description (no <RAW_FORMAT> "
            "element)");
  std::string no_uname = good;
  no_uname.replace(no_uname.find("uname=\"SLOC\""), 12, "");
  EXPECT_EQ(load_error(no_uname), "f.xml:22: <TYPE> has no uname attribute");
  std::string bad_number = good;
  bad_number.replace(bad_number.find("offset=\"10\""), 11, "offset=\"1O\"");
  EXPECT_EQ(load_error(bad_number), "f.xml:10: <MEMBER> offset=\"1O\" is not a 32-bit number");
  std::string outside = good;
  outside.replace(outside.find("offset=\"10\""), 11, "offset=\"15\"");
  EXPECT_EQ(load_error(outside),
            "f.xml:1: member tid of HIT (2 bytes at 15) does not fit in a payload of 16 bytes");
  std::string no_when = good;
  no_when.replace(no_when.find("name=\"when\""), 11, "name=\"then\"");
  EXPECT_EQ(load_error(no_when), "f.xml:1: TYPE HIT has no MEMBER when");
  std::string clash = good;
  clash.replace(clash.find("\"IS_FLOC\" value=\"0x0001\""), 24, "\"IS_FLOC\" value=\"0x0000\"");
  EXPECT_EQ(load_error(clash), "f.xml:1: two types have the selector 0x0");
  std::string twice = good;
  twice.replace(twice.find("uname=\"FLOC\""), 12, "uname=\"HIT\"");
  EXPECT_EQ(load_error(twice), "f.xml:1: two types named HIT");
  std::string huge = good;
  huge.replace(huge.find("size=\"24\""), 9, "size=\"99999\"");
  EXPECT_EQ(load_error(huge), "f.xml:1: entry size 99999 (1 to 4096 bytes)");
}

}  // namespace
}  // namespace rtrace::stacktrack::test
