/// Hand-written TOML 1.0 documents covering every part of the specification, for the tomllib differential
/// test. Raw string literals keep backslashes as TOML sees them.
let validTOMLDocuments: [String] = [
    #"""
    # This is a TOML document
    title = "TOML Example"

    [owner]
    name = "Tom Preston-Werner"
    dob = 1979-05-27T07:32:00-08:00

    [database]
    enabled = true
    ports = [ 8000, 8001, 8002 ]
    data = [ ["delta", "phi"], [3.14] ]
    temp_targets = { cpu = 79.5, case = 72.0 }

    [servers]

    [servers.alpha]
    ip = "10.0.0.1"
    role = "frontend"

    [servers.beta]
    ip = "10.0.0.2"
    role = "backend"
    """#,
    #"""
    key = "value"
    bare_key = "value"
    bare-key = "value"
    1234 = "value"
    "127.0.0.1" = "value"
    "character encoding" = "value"
    "ʎǝʞ" = "value"
    'key2' = "value"
    'quoted "value"' = "value"
    "" = "blank"
    "\u00e9\t\"" = "escaped key"
    name = "Orange"
    physical.color = "orange"
    physical.shape = "round"
    site."google.com" = true
    fruit.name = "banana"     # this is best practice
    fruit. color = "yellow"    # same as fruit.color
    fruit . flavor = "banana"   # same as fruit.flavor
    3.14159 = "pi"
    true = 1
    inf = 2
    nan = 3
    -1 = 4
    1e5 = 5
    """#,
    #"""
    str = "I'm a string. \"You can quote me\". Name\tJos\u00E9\nLocation\tSF."
    str1 = """
    Roses are red
    Violets are blue"""
    str2 = """
    The quick brown \


      fox jumps over \
        the lazy dog."""
    str3 = """\
           The quick brown \
           fox jumps over \
           the lazy dog.\
           """
    str4 = """Here are two quotation marks: "". Simple enough."""
    str5 = """Here are three quotation marks: ""\"."""
    str6 = """Here are fifteen quotation marks: ""\"""\"""\"""\"""\"."""
    str7 = """"This," she said, "is just a pointless statement.""""
    str8 = """a\	
    b"""
    winpath  = 'C:\Users\nodejs\templates'
    winpath2 = '\\ServerX\admin$\system32\'
    quoted   = 'Tom "Dubs" Preston-Werner'
    regex    = '<\i\c*\s*>'
    regex2 = '''I [dw]on't need \d{2} apples'''
    lines  = '''
    The first newline is
    trimmed in raw strings.
       All other whitespace
       is preserved.
    '''
    quot15 = '''Here are fifteen quotation marks: """""""""""""""'''
    apos15 = "Here are fifteen apostrophes: '''''''''''''''"
    str9 = ''''That,' she said, 'is still pointless.''''
    escapes = "\b\t\n\f\r\"\\\u0000\U0001F600\u00e9\u007f"
    tab = "a	b"
    tab_literal = 'a	b'
    empty_basic = ""
    empty_literal = ''
    empty_ml = """"""
    empty_ml_literal = ''''''
    unicode = "😀 水 ü 𐅑"
    """#,
    #"""
    int1 = +99
    int2 = 42
    int3 = 0
    int4 = -17
    int5 = 1_000
    int6 = 5_349_221
    int7 = 53_49_221
    int8 = 1_2_3_4_5
    hex1 = 0xDEADBEEF
    hex2 = 0xdeadbeef
    hex3 = 0xdead_beef
    oct1 = 0o01234567
    oct2 = 0o755
    bin1 = 0b11010110
    max = 9223372036854775807
    min = -9223372036854775808
    hexmax = 0x7fffffffffffffff
    octmax = 0o777777777777777777777
    zero_signs = [+0, -0, 0x0, 0o0, 0b0, 0x00_0]
    flt1 = +1.0
    flt2 = 3.1415
    flt3 = -0.01
    flt4 = 5e+22
    flt5 = 1e06
    flt6 = -2E-2
    flt7 = 6.626e-34
    flt8 = 224_617.445_991_228
    flt9 = 1_0e1_0
    sf1 = inf
    sf2 = +inf
    sf3 = -inf
    sf4 = nan
    sf5 = +nan
    sf6 = -nan
    negzero = -0.0
    poszero = +0.0
    big = 1.7976931348623157e308
    huge = 1e400
    tiny = 5e-324
    exp_zero = 0e0
    rounding = 0.1
    """#,
    #"""
    bool1 = true
    bool2 = false
    odt1 = 1979-05-27T07:32:00Z
    odt2 = 1979-05-27T00:32:00-07:00
    odt3 = 1979-05-27T00:32:00.999999-07:00
    odt4 = 1979-05-27 07:32:00Z
    odt5 = 1979-05-27t07:32:00z
    odt6 = 1979-05-27T07:32:00.123456789+05:30
    odt7 = 0001-01-01T00:00:00+23:59
    ldt1 = 1979-05-27T07:32:00
    ldt2 = 1979-05-27T00:32:00.999999
    ldt3 = 1979-05-27 00:32:00.5
    ld1 = 1979-05-27
    lt1 = 07:32:00
    lt2 = 00:32:00.999999
    lt3 = 23:59:59.1
    leap = 2000-02-29
    leap2 = 2024-02-29
    dates = [1979-05-27, 07:32:00, 1979-05-27T07:32:00Z]
    date_then_comment = 1979-05-27 # a date followed by a comment
    inline = { d = 1979-05-27, t = 07:32:00 }
    """#,
    #"""
    integers = [ 1, 2, 3 ]
    colors = [ "red", "yellow", "green" ]
    nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]
    nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
    string_array = [ "all", 'strings', """are the same""", '''type''' ]
    numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]
    contributors = [
      "Foo Bar <foo@example.com>",
      { name = "Baz Qux", email = "bazqux@example.com", url = "https://example.com/bazqux" }
    ]
    integers2 = [
      1, 2, 3
    ]
    integers3 = [
      1,
      2, # this is ok
    ]
    empty = []
    empty_multiline = [
      # only a comment
    ]
    nested_empty = [[], [[]]]
    comments_everywhere = [ # one
      1 # two
      , # three
      2 # four
    ] # five
    multiline_strings = [ """
    a""", '''
    b''' ]
    """#,
    #"""
    [table-1]
    key1 = "some string"
    key2 = 123

    [table-2]
    key1 = "another string"
    key2 = 456

    [dog."tater.man"]
    type.name = "pug"

    [a.b.c]            # this is best practice
    [ d.e.f ]          # same as [d.e.f]
    [ g .  h  . i ]    # same as [g.h.i]
    [ j . "ʞ" . 'l' ]  # same as [j."ʞ".'l']

    # [x] you
    # [x.y] don't
    # [x.y.z] need these
    [x.y.z.w] # for this to work

    [x] # defining a super-table afterward is ok
    """#,
    #"""
    [fruit]
    apple.color = "red"
    apple.taste.sweet = true

    [fruit.apple.texture]  # you can add sub-tables
    smooth = true
    """#,
    #"""
    # Top-level table begins.
    name = "Fido"
    breed = "pug"

    # Top-level table ends.
    [owner]
    name = "Regina Dogman"
    member_since = 1999-08-04
    """#,
    #"""
    name = { first = "Tom", last = "Preston-Werner" }
    point = { x = 1, y = 2 }
    animal = { type.name = "pug" }
    nested = { a = { b = { c = 1 } }, d = [ { e = 1 }, { f = 2 } ] }
    empty = {}
    spaced = {  a = 1  ,  b = 2  }
    dotted = { a.b = 1, a.c = 2, "q".'r' = 3 }
    with_array = { list = [
      1,
      2,
    ] }
    """#,
    #"""
    [[products]]
    name = "Hammer"
    sku = 738594937

    [[products]]  # empty table within the array

    [[products]]
    name = "Nail"
    sku = 284758393

    color = "gray"

    [[fruits]]
    name = "apple"

    [fruits.physical]  # subtable
    color = "red"
    shape = "round"

    [[fruits.varieties]]  # nested array of tables
    name = "red delicious"

    [[fruits.varieties]]
    name = "granny smith"

    [[fruits]]
    name = "banana"

    [fruits.physical]
    color = "yellow"

    [[fruits.varieties]]
    name = "plantain"
    points = [ { x = 1, y = 2, z = 3 },
               { x = 7, y = 8, z = 9 },
               { x = 2, y = 4, z = 8 } ]
    """#,
    #"""
    [a.b.c]
    z = 1
    [a]
    b.d = 2
    x = 1
    [a.b.e]
    y = 3
    [q.r]
    [q]
    [q.s]
    """#,
    #"""
    x.y = 1
    [x.z]
    w = 2
    [[arr.of.tables]]
    k = 1
    [arr]
    v = 1
    [[arr.of.tables]]
    k = 2
    [arr.of.tables.sub]
    deep = true
    """#,
    "a = 1\r\nb = \"\"\"x\r\ny\"\"\"\r\n[t]\r\nc = 'z' # comment\r\nd = '''\r\nl1\r\nl2'''\r\ne = \"\"\"a \\\r\n   b\"\"\"\r\n",
    "   # indented comment\n\tkey = \"tab indented\" # trailing comment with ☃ and \"quotes\"\t\n[ spaced ] # comment\n  inner = 1\n",
    "a = 1",
    "",
    "# only a comment",
    "\n\n\n",
    "[empty]",
    "[[only]]",
    "a = [\n]\n",
    "k = 'no newline at end'",
    "comment_tab = 1 #\tok\u{80}\u{FFFF}",
]

/// Documents both parsers must refuse.
let invalidTOMLDocuments: [String] = [
    // Redefinitions.
    "a = 1\na = 2",
    "a = 1\na.b = 2",
    "a.b = 1\na = 2",
    "[a]\n[a]",
    "[a]\nb = 1\n[a.b]",
    "a = {b = 1}\na.c = 2",
    "a = {b = 1}\n[a.c]",
    "a = {b = 1}\n[a]",
    "[a]\nb.c = 1\n[a.b]",
    "a.b = 1\n[a]",
    "[[a]]\n[a]",
    "[a]\n[[a]]",
    "a = [1]\n[[a]]",
    "a = []\n[[a]]",
    "[fruit]\napple.color = \"red\"\n[fruit.apple]",
    "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.taste]",
    "[a.b.c]\nz = 9\n[a]\nb.c.t = 1",
    "[a.b.c.d]\nz = 9\n[a]\nb.c.d.k.t = 1",
    "[a.b.c]\n[a]\nb.d = 1\n[a.b]",
    "[a.b]\n[a]\nb = 1",
    "[[a.b]]\n[a]\nb.c = 1",
    "a = 1\n[a.b]",
    "a = [{b = 1}]\n[a.c]",
    "[a]\nb = 1\nb = 2",
    "\"a\" = 1\na = 2",
    "'a' = 1\n\"a\" = 2",
    "a = {b = 1, b = 2}",
    "a = {b.c = 1, b = 2}",
    "a = {b = {c = 1}, b.d = 2}",
    // Inline tables.
    "a = {b = 1,}",
    "a = {b = 1\n}",
    "a = {\nb = 1}",
    "a = {b = 1",
    "a = {,}",
    "a = {b}",
    "a = {b = 1 c = 2}",
    // Strings.
    "a = \"unterminated",
    "a = \"new\nline\"",
    "a = \"\\x\"",
    "a = \"\\e\"",
    "a = \"\\u00\"",
    "a = \"\\uD800\"",
    "a = \"\\U00110000\"",
    "a = \"\\u00G0\"",
    "a = 'a\nb'",
    "a = \"\"\"a\"\"\"\"\"\"",
    "a = '''a''''''",
    "a = \"control \u{1} char\"",
    "a = 'control \u{7F} char'",
    "a = '''x\u{8}'''",
    "a = \"\"\"x\u{1F}\"\"\"",
    "a = \"\"\"x\ry\"\"\"",
    "a = \"\"\"\\ x\"\"\"",
    "a = \"\"\"unterminated",
    "a = '''unterminated",
    "a = \"a\" \"b\"",
    // Numbers.
    "a = 01", "a = 1__2", "a = _1", "a = 1_", "a = +0x1", "a = -0x1", "a = 0X1", "a = 0x", "a = 0xG", "a = 0b2",
    "a = 0o8", "a = 1.", "a = .1", "a = 1.e5", "a = 1e", "a = 1e_5", "a = 1_.5", "a = 03.14", "a = +inf_",
    "a = infinity", "a = NaN", "a = Inf", "a = 1.5.6", "a = --1", "a = 1-2", "a = 0x_1", "a = 1e5.5", "a = 00.1",
    "a = -01", "a = 1._5", "a = 1e+", "a = +", "a = 0b", "a = 0o", "a = 1 2", "a = 0x1.5", "a = 1,000",
    // Booleans and words.
    "a = TRUE", "a = tru", "a = truex", "a = False", "a = null", "a = none",
    // Dates and times.
    "a = 1979-13-01", "a = 1979-02-30", "a = 1979-00-10", "a = 1979-05-00", "a = 1900-02-29",
    "a = 1979-05-27T25:00:00", "a = 1979-05-27T07:60:00", "a = 1979-05-27T07:32:61", "a = 07:32",
    "a = 1979-05-27T07:32", "a = 1979-05-27T07:32:00+24:00", "a = 1979-05-27T07:32:00+05:60",
    "a = 1979-05-27T07:32:00.", "a = 1979-5-27", "a = 1979-05-27T", "a = 07:32:00Z", "a = 1979-05-27 07:32",
    "a = 1979-05-27T07:32:00Zjunk", "a = 1979-05-27T07:32:00+0530", "a = 79-05-27", "a = 24:00:00",
    // Keys and structure.
    "= 1", "a b = 1", "a. = 1", ".a = 1", "a..b = 1", "\"\"\"a\"\"\" = 1", "a", "a =", "a = 1 b = 2", "[a", "[]",
    "[a]]", "[[a]", "[[a] ]", "[ [a]]", "[a.]", "[.a]", "a = 1\n[", "ʎǝʞ = 1", "a\n= 1", "a =\n1", "[a]b = 1",
    "[[]]", "a.\"b\"c = 1", "'''a''' = 1",
    // Arrays.
    "a = [1 2]", "a = [,]", "a = [1,,2]", "a = [", "a = [1", "a = [1,", "a = [\n1\n2]",
    // Comments, newlines, control characters.
    "a = 1 # \u{1}", "# \u{7F}", "a = 1\rb = 2", "a = 1 # ok\r", "a = 1\r", "\u{0} = 1", "a = 1\u{0}",
    "[a]\r", "a = \"x\" # \u{8}",
]

/// Spec violations Python's tomllib lets through (it has arbitrary-precision integers); we must refuse them.
let outOfRangeIntegers: [String] = [
    "a = 9223372036854775808", "a = -9223372036854775809", "a = 0x8000000000000000", "a = 0xffffffffffffffff",
    "a = 0o1000000000000000000000", "a = 0b1" + String(repeating: "0", count: 63), "a = 99999999999999999999999",
]
