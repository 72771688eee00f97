<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- English, the language Sluice is written in: its catalogue translates nothing, so the source text shows.
     A catalogue for another language starts from build/app/translations/sluice.ts, which every build gathers
     from the sources (lupdate), saved here as sluice_<language>.ts and listed in app/CMakeLists.txt. -->
<TS version="2.1" language="en_US" sourcelanguage="en_US">
</TS>
