import { describe, expect, test } from "bun:test";
import type { BookMetadata } from "../../src/formats/contract.ts";
import { parseFileName, parseFolderName } from "../../src/library/metadata/filename.ts";

const FILE_NAMES: ReadonlyArray<readonly [string, BookMetadata]> = [
  // The specification's four shapes.
  ["Naruto v01.cbz", { series: "Naruto", volume: 1 }],
  ["Batman #012.cbz", { series: "Batman", number: "12" }],
  ["Batman-012.cbz", { series: "Batman", number: "12" }],
  ["Saga (2012) 001.cbz", { series: "Saga", year: 2012, number: "1" }],
  // Fixture names.
  ["Captain Science #001 (1950) The Beginning - nothing.cbz", { series: "Captain Science", number: "1", year: 1950, title: "The Beginning - nothing" }],
  ["Captain Science #001-cix-cbi.cbr", { series: "Captain Science", number: "1", title: "cix-cbi" }],
  ["Captain Science #001.cb7", { series: "Captain Science", number: "1" }],
  ["science_comics_001.cbz", { series: "science comics", number: "1" }],
  ["The Incomplete Theft - Ralph Burke.epub", { title: "The Incomplete Theft - Ralph Burke" }],
  ["TitleWithVolume.epub", { title: "TitleWithVolume" }],
  // Volume variants.
  ["One Piece Vol. 3.cbz", { series: "One Piece", volume: 3 }],
  ["One Piece Volume 100.cbz", { series: "One Piece", volume: 100 }],
  ["One Piece vol.07.cbz", { series: "One Piece", volume: 7 }],
  ["Berserk_v02_[Digital].cbz", { series: "Berserk", volume: 2 }],
  // Chapter variants, decimals, zero padding.
  ["Chainsaw Man c012.cbz", { series: "Chainsaw Man", number: "12" }],
  ["Chainsaw Man Ch. 12.5.cbz", { series: "Chainsaw Man", number: "12.5" }],
  ["Chainsaw Man Chapter 097.cbz", { series: "Chainsaw Man", number: "97" }],
  ["Vinland Saga v03 c020.cbz", { series: "Vinland Saga", volume: 3, number: "20" }],
  ["Vinland Saga - Vol.01 Ch.001.cbz", { series: "Vinland Saga", volume: 1, number: "1" }],
  ["Batman #12.5.cbz", { series: "Batman", number: "12.5" }],
  ["Batman 000.cbz", { series: "Batman", number: "0" }],
  // Release tags.
  ["Invincible 001 (2003) (Digital) (Zone-Empire).cbr", { series: "Invincible", number: "1", year: 2003 }],
  ["[Group] Blame! v01 (c2c).cbz", { series: "Blame!", volume: 1 }],
  ["Saga_(2012)_054_(Digital)_(Empire).cbz", { series: "Saga", year: 2012, number: "54" }],
  ["Paper Girls 030 (of 30) (2019).cbz", { series: "Paper Girls", number: "30", year: 2019 }],
  // Numbers inside series names.
  ["Spider-Man 2099 001.cbz", { series: "Spider-Man 2099", number: "1" }],
  ["100 Bullets 012.cbz", { series: "100 Bullets", number: "12" }],
  ["X-Men 007 - Second Genesis.cbz", { series: "X-Men", number: "7", title: "Second Genesis" }],
  ["Hellboy v4 - The Right Hand of Doom.cbz", { series: "Hellboy", volume: 4, title: "The Right Hand of Doom" }],
  // No number at all: the name is the title; a path is reduced to the file name.
  ["/library/comics/Watchmen.cbz", { title: "Watchmen" }],
  ["Watchmen (1987).cbz", { series: "Watchmen", year: 1987 }],
];

/**
 * Real names from the public test suites of Kavita (API.Tests/Parsing/MangaParsingTests.cs and
 * ComicParsingTests.cs), comictagger (testing/filenames.py) and comicfn2dict
 * (tests/comic_filenames.py), with what their authors expect, in our fields (numbers without
 * zero padding; a chapter range is its first chapter). Only the fields listed are checked.
 */
const REAL_WORLD_NAMES: ReadonlyArray<readonly [string, BookMetadata]> = [
  // Kavita manga
  ["Killing Bites Vol. 0001 Ch. 0001 - Galactica Scanlations (gb)", { series: "Killing Bites", volume: 1, number: "1" }],
  ["Historys Strongest Disciple Kenichi_v11_c90-98.zip", { series: "Historys Strongest Disciple Kenichi", volume: 11, number: "90" }],
  ["B_Gata_H_Kei_v01[SlowManga&OverloadScans]", { series: "B Gata H Kei", volume: 1 }],
  ["BTOOOM! v01 (2013) (Digital) (Shadowcat-Empire)", { series: "BTOOOM!", volume: 1, year: 2013 }],
  ["Gokukoku no Brynhildr - c001-008 (v01) [TrinityBAKumA]", { series: "Gokukoku no Brynhildr", volume: 1, number: "1" }],
  ["Akame ga KILL! ZERO v01 (2016) (Digital) (LuCaZ).cbz", { series: "Akame ga KILL! ZERO", volume: 1, year: 2016 }],
  ["[Suihei Kiki]_Kasumi_Otoko_no_Ko_[Taruby]_v1.1.zip", { series: "Kasumi Otoko no Ko", volume: 1.1 }],
  ["Tonikaku Cawaii [Volume 11].cbz", { series: "Tonikaku Cawaii", volume: 11 }],
  ["[WS]_Ichiban_Ushiro_no_Daimaou_v02_ch10.zip", { series: "Ichiban Ushiro no Daimaou", volume: 2, number: "10" }],
  ["[xPearse] Kyochuu Rettou Volume 1 [English] [Manga] [Volume Scans]", { series: "Kyochuu Rettou", volume: 1 }],
  ["Tenjou_Tenge_v17_c100[MT].zip", { series: "Tenjou Tenge", volume: 17, number: "100" }],
  ["Shimoneta - Manmaru Hen - c001-006 (v01) [Various].zip", { series: "Shimoneta - Manmaru Hen", volume: 1, number: "1" }],
  ["Mujaki no Rakuen Vol12 ch76", { series: "Mujaki no Rakuen", volume: 12, number: "76" }],
  ["Ichinensei_ni_Nacchattara_v02_ch11_[Taruby]_v1.3.zip", { series: "Ichinensei ni Nacchattara", volume: 2, number: "11" }],
  ["Yumekui_Merry_v01_c01[Bakayarou-Kuu].rar", { series: "Yumekui Merry", volume: 1, number: "1" }],
  ["Yumekui-Merry_DKThias_Chapter11v2.zip", { number: "11" }],
  ["Itoshi no Karin - c001-006x1 (v01) [Renzokusei Scans]", { series: "Itoshi no Karin", volume: 1, number: "1" }],
  ["Kedouin Makoto - Corpse Party Musume, Chapter 12", { series: "Kedouin Makoto - Corpse Party Musume", number: "12" }],
  ["VanDread-v01-c001[MD].zip", { series: "VanDread", volume: 1, number: "1" }],
  ["Kodomo no Jikan vol. 10.cbz", { series: "Kodomo no Jikan", volume: 10 }],
  ["Vagabond_v03", { series: "Vagabond", volume: 3 }],
  ["Mujaki No Rakune Volume 10.cbz", { series: "Mujaki No Rakune", volume: 10 }],
  ["Umineko no Naku Koro ni - Episode 3 - Banquet of the Golden Witch #02.cbz", { series: "Umineko no Naku Koro ni", number: "2" }],
  ["Gantz.V26.cbz", { series: "Gantz", volume: 26 }],
  ["NEEDLESS_Vol.4_-Simeon_6_v2[SugoiSugoi].rar", { series: "NEEDLESS", volume: 4 }],
  ["[Hidoi]_Amaenaideyo_MS_vol01_chp02.rar", { series: "Amaenaideyo MS", volume: 1, number: "2" }],
  ["Okusama wa Shougakusei c003 (v01) [bokuwaNEET]", { series: "Okusama wa Shougakusei", volume: 1, number: "3" }],
  ["Sword Art Online Vol 10 - Alicization Running [Yen Press] [LuCaZ] {r2}.epub", { series: "Sword Art Online", volume: 10 }],
  ["Noblesse - Episode 406 (52 Pages).7z", { series: "Noblesse", number: "406" }],
  ["X-Men v1 #201 (September 2007).cbz", { series: "X-Men", volume: 1, number: "201", year: 2007 }],
  ["Hentai Ouji to Warawanai Neko. - Vol. 06 Ch. 034.5", { series: "Hentai Ouji to Warawanai Neko.", volume: 6, number: "34.5" }],
  ["The 100 Girlfriends Who Really, Really, Really, Really, Really Love You - Vol. 03.5 Ch. 023.5 - Volume 3 Extras.cbz", { series: "The 100 Girlfriends Who Really, Really, Really, Really, Really Love You", volume: 3.5, number: "23.5" }],
  ["Dance in the Vampire Bund {Special Edition} v03.5 (2019) (Digital) (KG Manga)", { series: "Dance in the Vampire Bund {Special Edition}", volume: 3.5, year: 2019 }],
  ["Accel World Chapter 001 Volume 002", { series: "Accel World", volume: 2, number: "1" }],
  ["APOSIMZ 017 (2018) (Digital) (danke-Empire).cbz", { series: "APOSIMZ", number: "17", year: 2018 }],
  ["Beelzebub_172_RHS.zip", { series: "Beelzebub", number: "172" }],
  ["Dr. STONE 136 (2020) (Digital) (LuCaZ).cbz", { series: "Dr. STONE", number: "136", year: 2020 }],
  ["Darwin's Game - Volume 14 (F).cbz", { series: "Darwin's Game", volume: 14 }],
  ["[BAA]_Darker_than_Black_c7.zip", { series: "Darker than Black", number: "7" }],
  ["Tonikaku Kawaii Vol-1 (Ch 01-08)", { series: "Tonikaku Kawaii", volume: 1, number: "1" }],
  ["Goblin Slayer Side Story - Year One 025.5", { series: "Goblin Slayer Side Story - Year One", number: "25.5" }],
  ["[AN] Mahoutsukai to Deshi no Futekisetsu na Kankei Chp. 1", { series: "Mahoutsukai to Deshi no Futekisetsu na Kankei", number: "1" }],
  ["Baketeriya ch01-05.zip", { series: "Baketeriya", number: "1" }],
  ["[PROzess]Kimi_ha_midara_na_Boku_no_Joou_-_Ch01", { series: "Kimi ha midara na Boku no Joou", number: "1" }],
  ["Fullmetal Alchemist chapters 101-108.cbz", { series: "Fullmetal Alchemist", number: "101" }],
  ["To Love Ru v09 Uncensored (Ch.071-079).cbz", { series: "To Love Ru", volume: 9, number: "71" }],
  ["Momo The Blood Taker - Chapter 027 Violent Emotion.cbz", { series: "Momo The Blood Taker", number: "27" }],
  ["Kiss x Sis - Ch.15 - The Angst of a 15 Year Old Boy.cbz", { series: "Kiss x Sis", number: "15" }],
  ["Kodoja #001 (March 2016)", { series: "Kodoja", number: "1", year: 2016 }],
  ["Seraph of the End - Vampire Reign 093 (2020) (Digital) (LuCaZ)", { series: "Seraph of the End - Vampire Reign", number: "93", year: 2020 }],
  ["Killing Bites - Vol 11 Chapter 050 Save Me, Nunupi!.cbz", { series: "Killing Bites", volume: 11, number: "50" }],
  ["Mad Chimera World - Volume 005 - Chapter 026.cbz", { series: "Mad Chimera World", volume: 5, number: "26" }],
  ["Great_Teacher_Onizuka_v16[TheSpectrum]", { series: "Great Teacher Onizuka", volume: 16 }],
  ["Battle Royale, v01 (2000) [TokyoPop] [Manga-Sketchbook]", { series: "Battle Royale", volume: 1, year: 2000 }],
  ["Kaiju No. 8 036 (2021) (Digital)", { series: "Kaiju No. 8", number: "36", year: 2021 }],
  ["Love Hina - Volume 01 [Scans].pdf", { series: "Love Hina", volume: 1 }],
  ["It's Witching Time! 001 (Digital) (Anonymous1234)", { series: "It's Witching Time!", number: "1" }],
  ["Highschool of the Dead - Full Color Edition v02 [Uasaha] (Yen Press)", { series: "Highschool of the Dead - Full Color Edition", volume: 2 }],
  ["Beelzebub_01_[Noodles].zip", { series: "Beelzebub", number: "1" }],
  ["Yumekui-Merry_DKThias_Chapter21.zip", { number: "21" }],
  ["Black Bullet - v4 c20.5 [batoto]", { series: "Black Bullet", volume: 4, number: "20.5" }],
  ["Deku_&_Bakugo_-_Rising_v1_c1.1.cbz", { series: "Deku & Bakugo - Rising", volume: 1, number: "1.1" }],
  ["Chapter 63 - The Promise Made for 520 Cenz.cbr", { number: "63" }],
  // Kavita comics
  ["Batman & Grendel (1996) 01 - Devil's Bones", { series: "Batman & Grendel", year: 1996, number: "1" }],
  ["Batman & Robin the Teen Wonder #0", { series: "Batman & Robin the Teen Wonder", number: "0" }],
  ["Scott Pilgrim 01 - Scott Pilgrim's Precious Little Life (2004)", { series: "Scott Pilgrim", number: "1", year: 2004 }],
  ["Teen Titans v1 001 (1966-02) (digital) (OkC.O.M.P.U.T.O.-Novus)", { series: "Teen Titans", volume: 1, number: "1", year: 1966 }],
  ["Wolverine - Origins 003 (2006) (digital) (Minutemen-PhD)", { series: "Wolverine - Origins", number: "3", year: 2006 }],
  ["Amazing Man Comics chapter 25", { series: "Amazing Man Comics", number: "25" }],
  ["Amazing Man Comics issue #25", { series: "Amazing Man Comics", number: "25" }],
  ["Invincible 033.5 - Marvel Team-Up 14 (2006) (digital) (Minutemen-Slayer)", { series: "Invincible", number: "33.5", year: 2006 }],
  ["Batman Wayne Family Adventures - Ep. 001 - Moving In", { series: "Batman Wayne Family Adventures", number: "1" }],
  ["spawn-123", { series: "spawn", number: "123" }],
  ["spawn-chapter-123", { series: "spawn", number: "123" }],
  ["Batman Beyond 2.0 001 (2013)", { series: "Batman Beyond 2.0", number: "1", year: 2013 }],
  ["Batgirl Vol.2000 #57 (December, 2004)", { series: "Batgirl", volume: 2000, number: "57", year: 2004 }],
  ["Batgirl V2000 #57", { series: "Batgirl", volume: 2000, number: "57" }],
  ["2000 AD 0366 [1984-04-28] (flopbie)", { series: "2000 AD", number: "366" }],
  ["Daredevil - v6 - 10 - (2019)", { series: "Daredevil", volume: 6, number: "10", year: 2019 }],
  ["Demon 012 (Sep 1973) c2c", { series: "Demon", number: "12", year: 1973 }],
  ["Superman v1.5 024 (09-10 1943)", { series: "Superman", volume: 1.5, number: "24" }],
  ["Batman Beyond 2016 - Chapter 001.cbz", { series: "Batman Beyond 2016", number: "1" }],
  ["Invincible 052 (c2c) (2008) (Minutemen-TheCouple)", { series: "Invincible", number: "52", year: 2008 }],
  ["Y - The Last Man #001", { series: "Y - The Last Man", number: "1" }],
  ["Daredevil - v6.5", { series: "Daredevil", volume: 6.5 }],
  // comictagger
  ["Monster_Island_v1_2__repaired__c2c.cbz", { series: "Monster Island", volume: 1, number: "2" }],
  ["Monster Island v1 3 (1957) -- The Revenge Of King Klong (noads).cbz", { series: "Monster Island", volume: 1, number: "3", year: 1957 }],
  ["Plastic Man v1 002 (1942).cbz", { series: "Plastic Man", volume: 1, number: "2", year: 1942 }],
  ["Blue Beetle 02.cbr", { series: "Blue Beetle", number: "2" }],
  ["Monster Island vol. 2 #2.cbz", { series: "Monster Island", volume: 2, number: "2" }],
  ["Crazy Weird Comics 2 (of 2) (1969).rar", { series: "Crazy Weird Comics", number: "2", year: 1969 }],
  ["Action Spy Tales v1965 #3.cbr", { series: "Action Spy Tales", volume: 1965, number: "3" }],
  ["Amazing Spider-Man 078.BEY (2022) (Digital) (Zone-Empire).cbr", { series: "Amazing Spider-Man", number: "78.BEY", year: 2022 }],
  ["Angel Wings #02 - Black Widow (2015) (Scanlation) (phillywilly).cbr", { series: "Angel Wings", number: "2", year: 2015, title: "Black Widow" }],
  ["Aquaman - Green Arrow - Deep Target 01 (of 07) (2021) (digital) (Son of Ultron-Empire).cbr", { series: "Aquaman - Green Arrow - Deep Target", number: "1", year: 2021 }],
  ["Avengers By Brian Michael Bendis v03 (2013) (Digital) (F2) (Kileko-Empire).cbz", { series: "Avengers By Brian Michael Bendis", volume: 3, year: 2013 }],
  ["Batman '89 (2021) (Webrip) (The Last Kryptonian-DCP).cbr", { series: "Batman '89", year: 2021 }],
  ["Batman_-_Superman_020_(2021)_(digital)_(NeverAngel-Empire).cbr", { series: "Batman - Superman", number: "20", year: 2021 }],
  ["Black Widow 009 (2021) (Digital) (Zone-Empire).cbr", { series: "Black Widow", number: "9", year: 2021 }],
  ["Blade Runner 2029 006 (2021) (3 covers) (digital) (Son of Ultron-Empire).cbr", { series: "Blade Runner 2029", number: "6", year: 2021 }],
  ["book of eli (2020) (digital) (Son of Ultron-Empire).cbr", { series: "book of eli", year: 2020 }],
  ["Goblin (2021) (digital) (Son of Ultron-Empire).cbr", { series: "Goblin", year: 2021 }],
  ["Marvel Previews 002 (January 2022) (Digital-Empire).cbr", { series: "Marvel Previews", number: "2", year: 2022 }],
  ["Marvel Two In One V1 #090  c2c (Comixbear-DCP).cbr", { series: "Marvel Two In One", volume: 1, number: "90" }],
  ["Star Wars - War of the Bounty Hunters - IG-88 #1 (2021) (Digital) (Kileko-Empire).cbz", { series: "Star Wars - War of the Bounty Hunters - IG-88", number: "1", year: 2021 }],
  ["The Defenders v1 058 (1978) (digital).cbz", { series: "The Defenders", volume: 1, number: "58", year: 1978 }],
  ["The Magic Order 2 06 (2022) (Digital) (Zone-Empire)[__913302__].cbz", { series: "The Magic Order 2", number: "6", year: 2022 }],
  ["Wonder Woman #001 Wonder Woman Day Special Edition (2021) (digital-Empire).cbr", { series: "Wonder Woman", number: "1", year: 2021 }],
  ["Wonder Woman #49 DC Sep-Oct 1951 digital [downsized, lightened, 4 missing story pages restored] (Shadowcat-Empire).cbz", { series: "Wonder Woman", number: "49", year: 1951 }],
  ["X-Men, 2021-08-04 (#02) (digital) (Glorith-HD).cbz", { series: "X-Men", number: "2", year: 2021 }],
  ["Cory Doctorow's Futuristic Tales of the Here and Now: Anda's Game #001 (2007).cbz", { number: "1", year: 2007 }],
  // comicfn2dict
  ["Night of 1000 Wolves 001 (2013).cbz", { series: "Night of 1000 Wolves", number: "1", year: 2013 }],
  ["19687 Sandman 53.cbz", { series: "19687 Sandman", number: "53" }],
  ["33475 OMAC v3 2.cbr", { series: "33475 OMAC", volume: 3, number: "2" }],
  ["Long Series Name 001 (2000) Title (TPB) (Releaser).cbz", { series: "Long Series Name", number: "1", year: 2000, title: "Title" }],
  ["Long Series Name (2000) 001 Title (TPB) (Releaser).cbz", { series: "Long Series Name", number: "1", year: 2000, title: "Title" }],
  ["Long Series Name (2000) #001 Title (TPB) (Releaser).cbz", { series: "Long Series Name", number: "1", year: 2000, title: "Title" }],
  ["Arkenstone Vol. 01 - The Smell of Burnt Toast (2020) (digital) (My-brother).cbr", { series: "Arkenstone", volume: 1, year: 2020, title: "The Smell of Burnt Toast" }],
  ["The_Arkenstone_v03_(2002)_(Digital)_(DR_&amp;_Quenya-Elves).cbr", { series: "The Arkenstone", volume: 3, year: 2002 }],
  ["Kartalk v01 001 - Fear the Brakes (2004) (digital) (Son of Ultron-EMpire).cbr", { series: "Kartalk", volume: 1, number: "1", year: 2004, title: "Fear the Brakes" }],
  ["Kartalk Library Edition v01 (1992) (digital) (Son of Ultron-Empire).cbr", { series: "Kartalk Library Edition", volume: 1, year: 1992 }],
  ["Jeremy John 003 (2007) (4 covers) (digital) (Minutemen-Faessla).cbz", { series: "Jeremy John", number: "3", year: 2007 }],
  ["King of Skittles 01 (of 05) (2020) (digital) (Son of Ultron-Empire).cbr", { series: "King of Skittles", number: "1", year: 2020 }],
  ["The Walking Dead #002 (2003).cbz", { series: "The Walking Dead", number: "2", year: 2003 }],
  ["The Walking Dead 4.cbz", { series: "The Walking Dead", number: "4" }],
  ["A Fractional Comic 1.1.cbz", { series: "A Fractional Comic", number: "1.1" }],
  ["A Fractional Comic 8.54.cbz", { series: "A Fractional Comic", number: "8.54" }],
  ["Monster_Island_v1_#2__repaired__c2c.cbz", { series: "Monster Island", volume: 1, number: "2" }],
  [" X-Men-V1-#067.cbr", { series: "X-Men", volume: 1, number: "67" }],
  ["Aquaman - Green Arrow - Deep Target #01 (of 07) (2021).cbr", { series: "Aquaman - Green Arrow - Deep Target", number: "1", year: 2021 }],
  ["Batman '89 (2021) .cbr", { series: "Batman '89", year: 2021 }],
  ["Marvel Previews #002 (January 2022).cbr", { series: "Marvel Previews", number: "2", year: 2022 }],
  ["Test Numeric Year #2 2001-02-24.cbz", { series: "Test Numeric Year", number: "2", year: 2001 }],
  ["action comics 1024.cbz", { series: "action comics", number: "1024" }],
  ["Blade Runner Free Comic Book Day 2021 (2021).cbr", { series: "Blade Runner Free Comic Book Day 2021", year: 2021 }],
  ["Super Strange Yarns (1957) #92 (1969).cbz", { series: "Super Strange Yarns", number: "92" }],
  ["Marvel Two In One V1 #090  c2c.cbr", { series: "Marvel Two In One", volume: 1, number: "90" }],
  ["Captain Science #001 (1950) The Beginning - nothing.cbz", { series: "Captain Science", number: "1", year: 1950, title: "The Beginning - nothing" }],

];

describe("parseFileName: names from Kavita, comictagger and comicfn2dict", () => {
  for (const [name, expected] of REAL_WORLD_NAMES) {
    test(name, () => {
      expect(parseFileName(name)).toMatchObject(expected);
    });
  }
});

describe("parseFileName", () => {
  for (const [name, expected] of FILE_NAMES) {
    test(name, () => {
      expect(parseFileName(name)).toEqual(expected);
    });
  }
});

describe("parseFolderName", () => {
  const FOLDERS: ReadonlyArray<readonly [string, BookMetadata]> = [
    ["Saga (2012) [Digital]", { series: "Saga", year: 2012 }],
    ["Captain Science 001", { series: "Captain Science 001" }],
    ["one_punch_man", { series: "one punch man" }],
  ];
  for (const [name, expected] of FOLDERS) {
    test(name, () => {
      expect(parseFolderName(name)).toEqual(expected);
    });
  }
});

test("a name without extension keeps its decimal number", () => {
  expect(parseFileName("Chainsaw Man Ch. 12.5")).toEqual({ series: "Chainsaw Man", number: "12.5" });
});
