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
  // More of the same suites: ranges, tomes and seasons, leading album numbers, "(1 of 3)", variants.
  ["Tonikaku Kawaii (Ch 59-67) (Ongoing)", { series: "Tonikaku Kawaii", number: "59" }],
  ["Knights of Sidonia c000 (S2 LE BD Omake - BLAME!) [Habanero Scans]", { series: "Knights of Sidonia", number: "0" }],
  ["Magi - Ch.252-005.cbz", { series: "Magi", number: "252" }],
  ["Kimetsu no Yaiba - Digital Colored Comics c162 Three Victorious Stars.cbz", { series: "Kimetsu no Yaiba - Digital Colored Comics", number: "162" }],
  ["Yuusha Ga Shinda! - Vol.tbd Chapter 27.001 V2 Infection ①.cbz", { series: "Yuusha Ga Shinda!", number: "27.001" }],
  ["Getsuyoubi no Tawawa - Ch. 001 - Ai-chan, Part 1", { series: "Getsuyoubi no Tawawa", number: "1" }],
  ["Please Go Home, Akutsu-San! - Chapter 038.5 - Volume Announcement.cbz", { series: "Please Go Home, Akutsu-San!", number: "38.5" }],
  ["The Duke of Death and His Black Maid - Ch. 177 - The Ball (3).cbz", { series: "The Duke of Death and His Black Maid", number: "177" }],
  ["[Renzokusei]_Kimi_wa_Midara_na_Boku_no_Joou_Ch5_Final_Chapter", { series: "Kimi wa Midara na Boku no Joou", number: "5" }],
  ["Seraph of the End - Vampire Reign 093  (2020) (Digital) (LuCaZ).cbz", { series: "Seraph of the End - Vampire Reign", number: "93", year: 2020 }],
  ["Zettai Karen Children v02 c003 - The Invisible Guardian (2) [JS Scans]", { series: "Zettai Karen Children", volume: 2, number: "3" }],
  ["My Charms Are Wasted on Kuroiwa Medaka - Ch. 37.5 - Volume Extras", { series: "My Charms Are Wasted on Kuroiwa Medaka", number: "37.5" }],
  ["Highschool of the Dead - 02", { series: "Highschool of the Dead", number: "2" }],
  ["Accel World: Vol 1", { series: "Accel World", volume: 1 }],
  ["Bleach 001-003", { series: "Bleach", number: "1" }],
  ["Nagasarete Airantou - Vol. 30 Ch. 187.5 - Vol.30 Omake", { series: "Nagasarete Airantou", volume: 30, number: "187.5" }],
  ["Cynthia The Mission - c000 - c006 (v06)", { series: "Cynthia The Mission", volume: 6, number: "0" }],
  ["Giant Ojou-sama - Ch. 33.5 - Volume 04 Bonus Chapter", { series: "Giant Ojou-sama", number: "33.5" }],
  ["04 - Asterix the Gladiator (1964) (Digital-Empire) (WebP by Doc MaKS)", { series: "Asterix the Gladiator", year: 1964 }],
  ["Batman & Wildcat (1 of 3)", { series: "Batman & Wildcat", number: "1" }],
  ["Batman & Catwoman - Trail of the Gun 01", { series: "Batman & Catwoman - Trail of the Gun", number: "1" }],
  ["Chew v1 - Taster´s Choise (2012) (Digital) (1920) (Kingpin-Empire)", { series: "Chew", volume: 1, year: 2012 }],
  ["Daredevil - t6 - 10 - (2019)", { series: "Daredevil", volume: 6, number: "10" }],
  ["Conquistador_-Tome_2", { series: "Conquistador", volume: 2 }],
  ["Max_l_explorateur-_Tome_0", { series: "Max l explorateur", volume: 0 }],
  ["Chevaliers d'Héliopolis T3 - Rubedo, l'oeuvre au rouge (Jodorowsky & Jérémy)", { series: "Chevaliers d'Héliopolis", volume: 3 }],
  ["Fables 2010 Vol. 1 Legends in Exile", { series: "Fables 2010", volume: 1 }],
  ["Batman Beyond 04 (of 6) (1999)", { series: "Batman Beyond", number: "4", year: 1999 }],
  ["Invincible 070.5 - Invincible Returns 1 (2010) (digital) (Minutemen-InnerDemons).cbr", { series: "Invincible", number: "70.5", year: 2010 }],
  ["Y - The Last Man #001", { series: "Y - The Last Man", number: "1" }],
  ["Cyberpunk 2077 - Trauma Team #04.cbz", { series: "Cyberpunk 2077 - Trauma Team", number: "4" }],
  ["Batman - The Man Who Laughs #1 (2005)", { series: "Batman - The Man Who Laughs", number: "1", year: 2005 }],
  ["Dragon Age - Until We Sleep 01 (of 03)", { series: "Dragon Age - Until We Sleep", number: "1" }],
  ["Green Lantern v2 017 - The Spy-Eye that doomed Green Lantern v2", { series: "Green Lantern", volume: 2, number: "17" }],
  ["Teen Titans t1 001 (1966-02) (digital) (OkC.O.M.P.U.T.O.-Novus)", { series: "Teen Titans", volume: 1, number: "1" }],
  ["Superman v1 024 (09-10 1943)", { series: "Superman", volume: 1, number: "24", year: 1943 }],
  ["Kiss x Sis - Ch.00 - Let's Start from 0.cbz", { series: "Kiss x Sis", number: "0" }],
  ["Tomogui Kyoushitsu - Chapter 006 Game 005 - Fingernails On Right Hand (Part 002).cbz", { series: "Tomogui Kyoushitsu", number: "6" }],
  ["Ijousha No Ai - Vol.01 Chapter 029 8 Years Ago", { series: "Ijousha No Ai", volume: 1, number: "29" }],
  ["Adabana c00-02", { series: "Adabana", number: "0" }],
  ["Historys Strongest Disciple Kenichi c01-c04", { series: "Historys Strongest Disciple Kenichi", number: "1" }],
  ["Beelzebub_53[KSH].zip", { series: "Beelzebub", number: "53" }],
  ["Loose_Relation_Between_Wizard_and_Apprentice_c07[AN].zip", { series: "Loose Relation Between Wizard and Apprentice", number: "7" }],
  ["Hinowa ga CRUSH! 018 (2019) (Digital) (LuCaZ).cbz", { series: "Hinowa ga CRUSH!", number: "18", year: 2019 }],
  ["Tower Of God S01 014 (CBT) (digital).cbz", { series: "Tower Of God", number: "14" }],
  ["Kodomo no Jikan vol. 1.cbz", { series: "Kodomo no Jikan", volume: 1 }],
  ["Volume 12 - Janken Boy is Coming!.cbz", { volume: 12 }],
  ["Wolverine & the X-Men #27AU.cbz", { series: "Wolverine & the X-Men" }],
  ["Kartalk Library Edition v01 (1992) (digital) (Son of Ultron-Empire).cbr", { series: "Kartalk Library Edition", volume: 1 }],
  ["Jeremy John v01 - Uninterested! (2007) (Digital) (Asgard-Empire).cbr", { series: "Jeremy John", volume: 1, title: "Uninterested!" }],
  ["Darkwad by Carlos Zemo v01 - Knuckle Fight (2009) (Digital) (Zone-Empire).cbr", { series: "Darkwad by Carlos Zemo", volume: 1, title: "Knuckle Fight" }],
  ["The Walking Dead #3.cbz", { series: "The Walking Dead", number: "3" }],
  ["Test Month First Date 02-24-2001.cbz", { series: "Test Month First Date", year: 2001 }],
  ["Elephantmen 2259 #008 - Simple Truth 03 (of 06) (2021).cbr", { series: "Elephantmen 2259", number: "8", year: 2021 }],
  ["Angel Wings 02 - Black Widow (2015) (Scanlation) (phillywilly).cbr", { series: "Angel Wings", number: "2", year: 2015 }],
  ["Foobar-Man Annual 121 - The Wrath of Foobar-Man, Part 1 of 2.cbz", { series: "Foobar-Man Annual", number: "121" }],
  ["ms. Marvel 3.cbz", { series: "ms. Marvel", number: "3" }],
  ["january jones 2.cbz", { series: "january jones", number: "2" }],
  ["batman 3 title (DC).cbz", { series: "batman", number: "3" }],
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
