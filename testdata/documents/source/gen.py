#!/usr/bin/env python3
"""Writes the Flat ODT sources of the document corpus and their known text.

Each document is written twice: NAME.fodt (the source LibreOffice converts
to PDF and DOCX, see make-corpus.sh) and NAME.txt (the text a converter
should find: headings, paragraphs, list items, table cells and footnotes,
never the running headers, footers or page numbers).
"""
import os
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))

EN = [
    "Trawl fetches public web pages and returns their main content as clean Markdown. The extraction pipeline was designed for retrieval-augmented generation, where every irrelevant navigation link and cookie banner costs tokens and accuracy.",
    "Documents published as portable files present a different challenge. Their characters are positioned individually on a page, and the reading order, the paragraph boundaries and the hierarchy of headings must be reconstructed from geometry and typography alone.",
    "Internationalisation requirements complicate the reconstruction considerably: hyphenated compound words, unconventional typographical conventions and multilingual documents appear frequently in governmental publications, scientific proceedings and institutional correspondence.",
    "The fishermen of the northern coast repaired their nets through the winter months, comparing the characteristics of different materials, the durability of synthetic fibres and the extraordinary resistance of traditional hemp against saltwater.",
    "Administrative documentation accumulated steadily throughout the nineteenth century. Parliamentary commissions investigated the circumstances of every shipwreck, interviewed the surviving crew members and published comprehensive recommendations concerning navigational instruments.",
    "Meteorological observations were recorded meticulously at every harbour. Temperature, barometric pressure, precipitation and the direction of the prevailing winds were entered in bound registers that survive in municipal archives today.",
    "Understanding the economic consequences required statistical methodologies that were unprecedented at the time. Researchers calculated the approximate productivity of individual vessels and correlated the quantities landed with seasonal variations.",
    "Contemporary historians interpret these materials cautiously. The surviving registers are incomplete, occasionally contradictory, and reflect the administrative priorities of institutions rather than the experiences of ordinary working communities.",
    "Nevertheless, the archives demonstrate remarkable continuity. Families maintained their occupations across generations, transmitted specialised knowledge orally, and adapted gradually to technological transformations that reshaped the industry.",
    "Electrification arrived late in the smaller settlements. Refrigeration, telecommunications and motorised transportation transformed distribution networks within a single decade, connecting isolated communities with metropolitan markets hundreds of kilometres away.",
    "Environmental regulations introduced during the following century established quotas, protected spawning grounds and restricted particular techniques. Their implementation generated controversy, litigation and extensive negotiations between stakeholders.",
    "The present corpus exercises a document converter with these paragraphs. Each file is generated from known text, so that the extracted words can be compared with the original words and scored objectively.",
]

RU = [
    "Трал извлекает основное содержание веб-страниц и возвращает его в виде чистого текста. Документы в формате PDF требуют восстановления порядка чтения и структуры заголовков.",
    "Рыбаки северного побережья чинили свои сети всю зиму, сравнивая прочность синтетических волокон и традиционной пеньки в солёной воде.",
]
EL = [
    "Οι ψαράδες της βόρειας ακτής επισκεύαζαν τα δίχτυα τους όλο τον χειμώνα, συγκρίνοντας την αντοχή των συνθετικών ινών με την παραδοσιακή κάνναβη.",
]
ZH = [
    "北方海岸的渔民整个冬天都在修补他们的渔网，比较合成纤维和传统麻绳在海水中的耐久性。",
]
AR = [
    "أصلح صيادو الساحل الشمالي شباكهم طوال أشهر الشتاء، وقارنوا متانة الألياف الاصطناعية بمقاومة القنب التقليدي لمياه البحر.",
    "تسجل الأرشيفات البلدية ملاحظات الطقس في كل ميناء، من درجة الحرارة إلى اتجاه الرياح السائدة.",
]
HE = [
    "דייגי החוף הצפוני תיקנו את רשתותיהם לאורך כל חודשי החורף, והשוו את עמידותם של סיבים סינתטיים לזו של קנבוס מסורתי במי ים.",
]

NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"')

STYLES = '''<office:font-face-decls>
 <style:font-face style:name="DejaVu Serif" svg:font-family="'DejaVu Serif'"/>
 <style:font-face style:name="DejaVu Sans" svg:font-family="'DejaVu Sans'"/>
 <style:font-face style:name="Noto Sans CJK SC" svg:font-family="'Noto Sans CJK SC'"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:hyphenation-ladder-count="no-limit"/>
  <style:text-properties style:font-name="DejaVu Serif" fo:font-size="11pt" fo:language="en" fo:country="US"
   style:font-name-asian="Noto Sans CJK SC" style:language-asian="zh" style:country-asian="CN"
   style:font-name-complex="DejaVu Sans" fo:hyphenate="%(hyph)s" fo:hyphenation-remain-char-count="2" fo:hyphenation-push-char-count="2"/>
 </style:default-style>
 <style:style style:name="Standard" style:family="paragraph" style:class="text"/>
 <style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph" style:parent-style-name="Standard">
  <style:paragraph-properties fo:margin-top="0cm" fo:margin-bottom="0.25cm" fo:text-align="justify"/>
 </style:style>
 <style:style style:name="RTL" style:family="paragraph" style:parent-style-name="Text_20_body">
  <style:paragraph-properties style:writing-mode="rl-tb" fo:text-align="end"/>
 </style:style>
 <style:style style:name="Title" style:family="paragraph" style:parent-style-name="Standard" style:class="chapter">
  <style:paragraph-properties fo:margin-bottom="0.5cm" fo:text-align="center"/>
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="24pt" fo:font-weight="bold" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="1">
  <style:paragraph-properties%(brk)s fo:margin-top="0.4cm" fo:margin-bottom="0.2cm" fo:keep-with-next="always"/>
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="18pt" fo:font-weight="bold" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="2">
  <style:paragraph-properties fo:margin-top="0.3cm" fo:margin-bottom="0.2cm" fo:keep-with-next="always"/>
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="14pt" fo:font-weight="bold" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Header" style:family="paragraph" style:parent-style-name="Standard">
  <style:text-properties fo:font-size="9pt"/>
 </style:style>
 <style:style style:name="Footer" style:family="paragraph" style:parent-style-name="Standard">
  <style:paragraph-properties fo:text-align="center"/>
  <style:text-properties fo:font-size="9pt"/>
 </style:style>
 <style:style style:name="Footnote" style:family="paragraph" style:parent-style-name="Standard">
  <style:text-properties fo:font-size="9pt"/>
 </style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" fo:margin-right="2cm">
   %(columns)s
  </style:page-layout-properties>
  <style:header-style><style:header-footer-properties fo:min-height="0cm" fo:margin-bottom="0.5cm"/></style:header-style>
  <style:footer-style><style:header-footer-properties fo:min-height="0cm" fo:margin-top="0.5cm"/></style:footer-style>
 </style:page-layout>
 <text:list-style style:name="LB">
  <text:list-level-style-bullet text:level="1" text:bullet-char="•">
   <style:list-level-properties text:list-level-position-and-space-mode="label-alignment">
    <style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="1.27cm" fo:text-indent="-0.635cm" fo:margin-left="1.27cm"/>
   </style:list-level-properties>
  </text:list-level-style-bullet>
 </text:list-style>
 <text:list-style style:name="LN">
  <text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1">
   <style:list-level-properties text:list-level-position-and-space-mode="label-alignment">
    <style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="1.27cm" fo:text-indent="-0.635cm" fo:margin-left="1.27cm"/>
   </style:list-level-properties>
  </text:list-level-style-number>
 </text:list-style>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">
  %(header)s
 </style:master-page>
</office:master-styles>'''

HEADER = ('<style:header><text:p text:style-name="Header">%s</text:p></style:header>'
          '<style:footer><text:p text:style-name="Footer">Page <text:page-number text:select-page="current">1</text:page-number></text:p></style:footer>')


class Doc:
    def __init__(self, name, title, author, keywords, lang="en-US", columns=1, running=None, hyphenate=True, page_per_chapter=False):
        self.name, self.title, self.author, self.keywords, self.lang = name, title, author, keywords, lang
        self.page_per_chapter = page_per_chapter
        self.columns, self.running, self.hyphenate = columns, running, hyphenate
        self.body, self.truth = [], []

    def p(self, text, style="Text_20_body", note=None):
        x = escape(text)
        if note:
            x += ('<text:note text:note-class="footnote"><text:note-citation>%d</text:note-citation>'
                  '<text:note-body><text:p text:style-name="Footnote">%s</text:p></text:note-body></text:note>' % (note[0], escape(note[1])))
        self.body.append('<text:p text:style-name="%s">%s</text:p>' % (style, x))
        self.truth.append(text)
        if note:
            self.truth.append(note[1])

    def h(self, level, text):
        self.body.append('<text:h text:style-name="Heading_20_%d" text:outline-level="%d">%s</text:h>' % (level, level, escape(text)))
        self.truth.append(text)

    def title_(self, text):
        self.body.append('<text:p text:style-name="Title">%s</text:p>' % escape(text))
        self.truth.append(text)

    def lst(self, items, numbered=False):
        self.body.append('<text:list text:style-name="%s">' % ("LN" if numbered else "LB"))
        for it in items:
            self.body.append('<text:list-item><text:p text:style-name="Standard">%s</text:p></text:list-item>' % escape(it))
            self.truth.append(it)
        self.body.append('</text:list>')

    def table(self, rows):
        self.body.append('<table:table table:name="T%d"><table:table-column table:number-columns-repeated="%d"/>' % (len(self.body), len(rows[0])))
        for r in rows:
            self.body.append('<table:table-row>' + ''.join(
                '<table:table-cell office:value-type="string"><text:p text:style-name="Standard">%s</text:p></table:table-cell>' % escape(c) for c in r) + '</table:table-row>')
            self.truth.append(" ".join(r))
        self.body.append('</table:table>')

    def write(self):
        lang, _, country = self.lang.partition("-")
        cols = '<style:columns fo:column-count="%d" fo:column-gap="0.8cm"/>' % self.columns if self.columns > 1 else ''
        header = HEADER % escape(self.running) if self.running else ''
        styles = STYLES % {"brk": ' fo:break-before="page"' if self.page_per_chapter else '', "columns": cols, "header": header, "hyph": "true" if self.hyphenate else "false"}
        meta = ('<office:meta><dc:title>%s</dc:title><dc:creator>%s</dc:creator><meta:initial-creator>%s</meta:initial-creator>'
                '<meta:keyword>%s</meta:keyword><dc:language>%s</dc:language></office:meta>' % (
                    escape(self.title), escape(self.author), escape(self.author), escape(self.keywords), self.lang))
        doc = ('<?xml version="1.0" encoding="UTF-8"?>\n<office:document %s office:version="1.3" '
               'office:mimetype="application/vnd.oasis.opendocument.text">\n%s\n%s\n<office:body><office:text>\n%s\n</office:text></office:body></office:document>\n') % (
                   NS, meta, styles, "\n".join(self.body))
        with open(os.path.join(HERE, self.name + ".fodt"), "w", encoding="utf-8") as f:
            f.write(doc)
        with open(os.path.join(HERE, self.name + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n\n".join(self.truth) + "\n")


def report():
    d = Doc("report", "Nets and Archives", "Ada Lovelace", "fishing, archives, corpus", running="Nets and Archives: a test report")
    d.title_("Nets and Archives")
    d.h(1, "Introduction")
    d.p(EN[0]); d.p(EN[1], note=(1, "Portable Document Format files place every glyph at absolute coordinates."))
    d.p(EN[2])
    d.h(2, "What the converter must find")
    d.lst(["Headings from the size of their type", "Paragraphs joined across lines and pages", "Words split by hyphenation joined again"])
    d.p(EN[3]); d.p(EN[4])
    d.h(1, "Records of the harbours")
    d.p(EN[5])
    d.table([["Harbour", "Vessels", "Registers"], ["Northport", "42", "118"], ["Saltmarsh", "17", "64"], ["Greyhaven", "29", "90"]])
    d.p(EN[6], note=(2, "The figures are invented for this corpus."))
    d.p(EN[7])
    d.h(2, "Steps of the survey")
    d.lst(["Collect the harbour registers", "Transcribe the weather columns", "Compare the landed quantities"], numbered=True)
    for i in range(3):
        d.h(1, "Chapter %d of the history" % (i + 1))
        for t in EN[8:] + EN[:8]:
            d.p(t)
    d.write()


def two_columns():
    d = Doc("two-columns", "Harbour Notes in Two Columns", "Grace Hopper", "columns, layout", columns=2, running="Harbour Notes")
    d.h(1, "Harbour Notes")
    for i, t in enumerate(EN * 2):
        if i % 5 == 0 and i:
            d.h(2, "Section %d" % (i // 5 + 1))
        d.p(t)
    d.write()


def languages():
    d = Doc("languages", "Nets in Many Languages", "Ibn Battuta", "multilingual, rtl", lang="ru-RU", hyphenate=False, running="Nets in Many Languages")
    d.h(1, "Русский")
    for t in RU: d.p(t)
    d.h(1, "Ελληνικά")
    for t in EL: d.p(t)
    d.h(1, "中文")
    for t in ZH: d.p(t)
    d.h(1, "العربية")
    for t in AR: d.p(t, style="RTL")
    d.h(1, "עברית")
    for t in HE: d.p(t, style="RTL")
    d.write()


def large():
    d = Doc("large", "A Long Register", "Trawl", "large", running="A Long Register", page_per_chapter=True)
    for c in range(1, 301):
        d.h(1, "Register %d" % c)
        for i in range(6):
            d.p("Entry %d.%d. %s" % (c, i + 1, EN[(c + i) % len(EN)]))
    d.write()


def scanned_text():
    with open(os.path.join(HERE, "scanned.txt"), "w", encoding="utf-8") as f:
        f.write(EN[3] + "\n")


if __name__ == "__main__":
    report(); two_columns(); languages(); large(); scanned_text()
