package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.iface.NameFilter;

class IbHcaListTest {
    private static List<NameFilter.Entry> entries(String value) {
        return NameFilter.parse(value).entries();
    }

    private static NameFilter.Entry e(String name, int port) {
        return new NameFilter.Entry(name, port);
    }

    @Test
    void unsetAcceptsEverything() {
        NameFilter f = NameFilter.parse(null);
        assertTrue(f.matches("mlx5_0", 1));
        assertTrue(f.matches("anything", 7));
    }

    @Test
    void emptyListAcceptsEverything() {
        assertTrue(NameFilter.parse("").matches("mlx5_0", 1));
        assertTrue(NameFilter.parse(",,").matches("mlx5_0", 1));
        assertTrue(NameFilter.parse("=").matches("mlx5_0", 1));
    }

    @Test
    void caretAloneExcludesEverything() {
        // An empty list matches everything, and '^' inverts that (NCCL behaves the same).
        assertFalse(NameFilter.parse("^").matches("mlx5_0", 1));
    }

    @Test
    void parsesNamesAndPorts() {
        assertEquals(List.of(e("mlx5_0", 1), e("mlx5_1", -1), e("mlx4_0", 2)),
                entries("mlx5_0:1,mlx5_1,mlx4_0:2"));
    }

    @Test
    void dropsEmptyNamesAndPortOnlyEntries() {
        assertEquals(List.of(e("mlx5_0", -1), e("mlx5_2", -1)), entries(",,mlx5_0,:3,mlx5_2,"));
    }

    @Test
    void portIsParsedLikeAtoi() {
        assertEquals(List.of(e("mlx5_0", 1), e("mlx5_1", -1)), entries("mlx5_0:1x,mlx5_1"));
        assertEquals(List.of(e("mlx5_0", 0)), entries("mlx5_0:abc"));
        assertEquals(List.of(e("mlx5_0", 0)), entries("mlx5_0:"));
        assertEquals(List.of(e("mlx5_0", -2)), entries("mlx5_0:-2"));
    }

    @Test
    void keepsAtMostSixteenEntries() {
        String value = IntStream.range(0, 20).mapToObj(i -> "mlx5_" + i).collect(Collectors.joining(","));
        List<NameFilter.Entry> parsed = entries(value);
        assertEquals(NameFilter.MAX_ENTRIES, parsed.size());
        assertEquals(e("mlx5_15", -1), parsed.get(15));
        assertFalse(NameFilter.parse("=" + value).matches("mlx5_16", 1));
    }

    @Test
    void cutsNamesAtSixtyThreeCharacters() {
        String longName = "x".repeat(70);
        assertEquals(List.of(e("x".repeat(NameFilter.MAX_ENTRY_LENGTH), 4)), entries(longName + ":4"));
    }

    @Test
    void entriesArePrefixesUnlessEquals() {
        NameFilter prefix = NameFilter.parse("mlx5_1");
        assertTrue(prefix.matches("mlx5_1", 1));
        assertTrue(prefix.matches("mlx5_11", 1), "mlx5_1 is a prefix of mlx5_11 (why '=' exists)");
        assertFalse(prefix.matches("mlx5_0", 1));
        assertFalse(prefix.matches("mlx5_", 1), "the entry must be a prefix of the device, not the reverse");

        NameFilter exact = NameFilter.parse("=mlx5_1");
        assertTrue(exact.exact());
        assertTrue(exact.matches("mlx5_1", 1));
        assertFalse(exact.matches("mlx5_11", 1));
    }

    @Test
    void portMinusOneMatchesAnyPort() {
        NameFilter f = NameFilter.parse("mlx5_0:1");
        assertTrue(f.matches("mlx5_0", 1));
        assertFalse(f.matches("mlx5_0", 2));
        assertTrue(f.matches("mlx5_0", -1));
        assertTrue(NameFilter.parse("mlx5_0").matches("mlx5_0", 2));
    }

    @Test
    void caretExcludes() {
        NameFilter f = NameFilter.parse("^mlx5_0");
        assertTrue(f.exclude());
        assertFalse(f.matches("mlx5_0", 1));
        assertFalse(f.matches("mlx5_0", 2));
        assertTrue(f.matches("mlx5_1", 1));
        assertFalse(f.matches("mlx5_01", 1), "prefix match also applies to exclusions");

        NameFilter port = NameFilter.parse("^mlx5_0:1");
        assertFalse(port.matches("mlx5_0", 1));
        assertTrue(port.matches("mlx5_0", 2));
    }

    @Test
    void caretThenEqualsExcludesExactly() {
        NameFilter f = NameFilter.parse("^=mlx5_1");
        assertTrue(f.exclude());
        assertTrue(f.exact());
        assertFalse(f.matches("mlx5_1", 1));
        assertTrue(f.matches("mlx5_11", 1));
    }

    @Test
    void equalsThenCaretIsNotAnExclusion() {
        NameFilter f = NameFilter.parse("=^mlx5_0");
        assertFalse(f.exclude());
        assertTrue(f.exact());
        assertEquals(List.of(e("^mlx5_0", -1)), f.entries());
        assertFalse(f.matches("mlx5_0", 1));
    }

    @Test
    void blanksArePartOfNames() {
        // NCCL does not trim: " mlx5_0" never matches mlx5_0.
        assertFalse(NameFilter.parse(" mlx5_0").matches("mlx5_0", 1));
        assertTrue(NameFilter.parse("mlx5_0, mlx5_1").matches("mlx5_0", 1));
        assertFalse(NameFilter.parse("mlx5_0, mlx5_1").matches("mlx5_1", 1));
    }

    @Test
    void toStringIsTheSetting() {
        assertEquals("^=mlx5_1:1", NameFilter.parse("^=mlx5_1:1").toString());
        assertEquals("", NameFilter.parse(null).toString());
    }
}
