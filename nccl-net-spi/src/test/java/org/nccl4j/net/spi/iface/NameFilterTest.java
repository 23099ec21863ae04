package org.nccl4j.net.spi.iface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class NameFilterTest {
    @Test
    void prefixMatchesEveryNameItStarts() {
        NameFilter f = NameFilter.parse("eth");
        assertTrue(f.matches("eth0"));
        assertTrue(f.matches("eth10"));
        assertTrue(f.matches("eth"));
        assertFalse(f.matches("et"));
        assertFalse(f.matches("ib0"));
    }

    @Test
    void prefixQuirkMatchesLongerDeviceNames() {
        // The reason '=' exists (NVIDIA/nccl#177): mlx5_1 also matches mlx5_11.
        assertTrue(NameFilter.parse("mlx5_1").matches("mlx5_11"));
        assertFalse(NameFilter.parse("=mlx5_1").matches("mlx5_11"));
        assertTrue(NameFilter.parse("=mlx5_1").matches("mlx5_1"));
    }

    @Test
    void caretExcludes() {
        NameFilter f = NameFilter.parse("^docker,lo");
        assertTrue(f.exclude());
        assertFalse(f.matches("docker0"));
        assertFalse(f.matches("lo"));
        assertFalse(f.matches("local1"), "prefix 'lo' also excludes names starting with lo");
        assertTrue(f.matches("eth0"));
    }

    @Test
    void caretEqualsExcludesExactly() {
        NameFilter f = NameFilter.parse("^=docker0");
        assertTrue(f.exclude());
        assertTrue(f.exact());
        assertFalse(f.matches("docker0"));
        assertTrue(f.matches("docker01"));
        assertTrue(f.matches("eth0"));
    }

    @Test
    void equalsBeforeCaretIsNotAnExclusion() {
        NameFilter f = NameFilter.parse("=^eth0");
        assertFalse(f.exclude());
        assertTrue(f.exact());
        assertEquals(List.of(new NameFilter.Entry("^eth0", -1)), f.entries());
        assertFalse(f.matches("eth0"));
    }

    @Test
    void emptyListMatchesEverythingAndExcludedEmptyListNothing() {
        assertTrue(NameFilter.parse("").matches("anything"));
        assertTrue(NameFilter.parse(null).matches("anything"));
        assertFalse(NameFilter.parse("^").matches("anything"));
        assertFalse(NameFilter.parse("^=").matches("anything"));
    }

    @Test
    void portsAreParsedLikeAtoiAndMatchedWithWildcards() {
        NameFilter f = NameFilter.parse("mlx5_0:1,mlx5_1:2x,mlx5_2:,mlx5_3");
        assertEquals(List.of(new NameFilter.Entry("mlx5_0", 1), new NameFilter.Entry("mlx5_1", 2),
                new NameFilter.Entry("mlx5_2", 0), new NameFilter.Entry("mlx5_3", -1)), f.entries());
        assertTrue(f.matches("mlx5_0", 1));
        assertFalse(f.matches("mlx5_0", 2));
        assertTrue(f.matches("mlx5_0"), "port -1 on the asking side matches any entry port");
        assertTrue(f.matches("mlx5_3", 7), "entry without port matches any port");
        assertFalse(f.matches("mlx5_2", 1));
    }

    @Test
    void emptyEntriesAndNamelessPortsAreSkipped() {
        NameFilter f = NameFilter.parse(",,eth0,,:5,ib");
        assertEquals(List.of(new NameFilter.Entry("eth0", -1), new NameFilter.Entry("ib", -1)), f.entries());
    }

    @Test
    void atMostSixteenEntriesAndSixtyThreeCharacters() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            sb.append(i == 0 ? "" : ",").append("if").append(i);
        }
        NameFilter f = NameFilter.parse(sb.toString());
        assertEquals(16, f.entries().size());
        assertEquals("if15", f.entries().get(15).name());
        NameFilter longName = NameFilter.parse("x".repeat(80));
        assertEquals(63, longName.entries().getFirst().name().length());
    }

    @Test
    void rendersBackInNcclSyntax() {
        assertEquals("^=eth0,ib0:1", NameFilter.parse("^=eth0,ib0:1").toString());
    }
}
