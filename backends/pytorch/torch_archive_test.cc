// Unit tests of ReadZipDirectory / ReadTorchArchive (records and version of
// archives laid out as PyTorch writes them, zip64 included; damaged and
// non-zip files) and of CheckTorchArchive / ExplainTorchLoadFailure (which
// archives are refused, and the messages naming both versions).
#include "torch_archive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "zip_directory.h"

namespace inferd::pytorch {
namespace {

std::string Le(uint64_t value, int size) {
  std::string out;
  for (int i = 0; i < size; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

// A zip of stored records; `zip64` writes the central directory's location
// and each entry's offset through zip64 records, as miniz does past 4 GiB.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& records,
                bool zip64 = false) {
  std::string body;
  std::string directory;
  for (const auto& [name, data] : records) {
    const uint64_t offset = body.size();
    body += Le(0x04034b50, 4) + std::string(14, '\0') + Le(data.size(), 4) +
            Le(data.size(), 4) + Le(name.size(), 2) + Le(0, 2) + name + data;
    const std::string extra = zip64 ? Le(1, 2) + Le(8, 2) + Le(offset, 8) : "";
    directory += Le(0x02014b50, 4) + std::string(16, '\0') + Le(data.size(), 4) +
                 Le(data.size(), 4) + Le(name.size(), 2) + Le(extra.size(), 2) +
                 std::string(10, '\0') + Le(zip64 ? 0xffffffff : offset, 4) + name + extra;
  }
  std::string out = body + directory;
  if (zip64) {
    const uint64_t end64_at = out.size();
    out += Le(0x06064b50, 4) + Le(44, 8) + std::string(4 + 8, '\0') + Le(records.size(), 8) +
           Le(records.size(), 8) + Le(directory.size(), 8) + Le(body.size(), 8);
    out += Le(0x07064b50, 4) + Le(0, 4) + Le(end64_at, 8) + Le(1, 4);
  }
  return out + Le(0x06054b50, 4) + std::string(6, '\0') + Le(records.size(), 2) +
         Le(zip64 ? 0xffffffff : directory.size(), 4) + Le(zip64 ? 0xffffffff : body.size(), 4) +
         Le(0, 2);
}

std::vector<std::pair<std::string, std::string>> TorchScript(const std::string& version) {
  return {{"m/data.pkl", "x"}, {"m/code/__torch__.py", "def forward"},
          {"m/constants.pkl", "y"}, {"m/version", version}, {"m/byteorder", "little"}};
}

TorchArchive Read(const std::string& bytes, std::string* error = nullptr) {
  std::istringstream in(bytes);
  TorchArchive archive;
  const std::string err = ReadTorchArchive(in, &archive);
  if (error != nullptr) *error = err;
  return archive;
}

const LibtorchInfo kLibtorch{"1.13.0", 10};

TEST(TorchArchiveTest, ReadsTorchScriptRecordsAndVersion) {
  for (bool zip64 : {false, true}) {
    std::string error;
    const TorchArchive archive = Read(Zip(TorchScript("4\n"), zip64), &error);
    EXPECT_EQ(error, "");
    EXPECT_TRUE(archive.has_code);
    EXPECT_TRUE(archive.has_version);
    EXPECT_EQ(archive.version, 4u);
    EXPECT_FALSE(archive.is_pt2);
    EXPECT_EQ(CheckTorchArchive(archive, kLibtorch), "");
  }
}

TEST(TorchArchiveTest, ANewerFormatVersionIsRefusedNamingBoth) {
  const TorchArchive archive = Read(Zip(TorchScript("11")));
  EXPECT_EQ(CheckTorchArchive(archive, kLibtorch),
            "TorchScript file format version 11, newer than the 10 that LibTorch 1.13.0 reads "
            "(saved by a newer PyTorch)");
  EXPECT_FALSE(Read(Zip(TorchScript("eleven"))).has_version);
}

TEST(TorchArchiveTest, TorchSaveAndExportArchivesAreNamedForWhatTheyAre) {
  const TorchArchive eager =
      Read(Zip({{"e/data.pkl", "x"}, {"e/data/0", "w"}, {"e/version", "3"}}));
  EXPECT_EQ(CheckTorchArchive(eager, kLibtorch).substr(0, 26), "a torch.save() file (a pic");
  const TorchArchive pt2 = Read(Zip({{"p/archive_format", "pt2"}, {"p/models/model.json", "{}"}}));
  EXPECT_TRUE(pt2.is_pt2);
  EXPECT_EQ(CheckTorchArchive(pt2, kLibtorch).substr(0, 48),
            "a torch.export / AOTInductor archive (.pt2), whi");
}

TEST(TorchArchiveTest, NonZipAndDamagedFilesAreLeftToLibtorch) {
  std::string error;
  Read("not a zip file at all, just some text", &error);
  EXPECT_EQ(error, "not a zip archive (no end of central directory record)");
  Read("PK", &error);
  EXPECT_EQ(error, "not a zip archive (too short)");
  std::string zip = Zip(TorchScript("3"));
  zip[zip.size() - 3] = '\x7f';  // the directory's offset past the end
  Read(zip, &error);
  EXPECT_EQ(error, "not a zip archive (its central directory is outside the file)");
}

TEST(TorchArchiveTest, UnknownOperatorsAreExplainedWithBothVersions) {
  const TorchArchive archive = Read(Zip(TorchScript("3")));
  EXPECT_EQ(ExplainTorchLoadFailure("Unknown builtin op: aten::scaled_dot_product_attention.",
                                    archive, kLibtorch),
            "Unknown builtin op: aten::scaled_dot_product_attention. (TorchScript file format "
            "version 3; LibTorch 1.13.0 knows the operators of PyTorch 1.13.0: a module saved "
            "by a newer PyTorch loads when it uses only those)");
  EXPECT_EQ(ExplainTorchLoadFailure("PytorchStreamReader failed", archive, kLibtorch),
            "PytorchStreamReader failed");
}

TEST(ZipDirectoryTest, StoredEntriesAreReadWithinTheirLimit) {
  const std::string zip = Zip({{"a/version", "7"}, {"a/big", std::string(100, 'b')}});
  std::istringstream in(zip);
  std::vector<ZipEntry> entries;
  ASSERT_EQ(ReadZipDirectory(in, &entries), "");
  ASSERT_EQ(entries.size(), 2u);
  std::string bytes;
  EXPECT_EQ(ReadStoredZipEntry(in, entries[0], 64, &bytes), "");
  EXPECT_EQ(bytes, "7");
  EXPECT_EQ(ReadStoredZipEntry(in, entries[1], 64, &bytes), "a/big is too large");
}

// A file that records the largest read asked of it.
class ReadSizeRecorder : public std::stringbuf {
 public:
  explicit ReadSizeRecorder(const std::string& bytes) : std::stringbuf(bytes) {}
  std::streamsize largest = 0;

 protected:
  std::streamsize xsgetn(char* out, std::streamsize count) override {
    largest = std::max(largest, count);
    return std::stringbuf::xsgetn(out, count);
  }
};

// Found by torch_archive_fuzz (288 runs a second): a short file whose end
// record claims a directory of up to 256 MiB had that much allocated and read
// before the read came up short. Each size (zip64's too) is now held against
// the file first.
TEST(ZipDirectoryTest, ADirectoryLargerThanTheFileIsRefusedUnread) {
  for (bool zip64 : {false, true}) {
    std::string zip = Zip(TorchScript("3"), zip64);
    const size_t size_at = zip64 ? zip.size() - 22 - 20 - 56 + 40 : zip.size() - 22 + 12;
    zip.replace(size_at, zip64 ? 8 : 4, zip64 ? Le(200 << 20, 8) : Le(200 << 20, 4));
    ReadSizeRecorder file(zip);
    std::istream in(&file);
    std::vector<ZipEntry> entries;
    EXPECT_EQ(ReadZipDirectory(in, &entries),
              "not a zip archive (its central directory is outside the file)");
    EXPECT_LE(file.largest, static_cast<std::streamsize>(zip.size())) << zip64;
  }
}

}  // namespace
}  // namespace inferd::pytorch
