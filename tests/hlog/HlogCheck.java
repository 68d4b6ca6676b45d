// SPDX-License-Identifier: GPL-2.0
// Reads a .hlog with HdrHistogram's own HistogramLogReader (Debian's
// libhdrhistogram-java) and prints, per tag, "<tag> <intervals> <count>
// <p50> <p99> <max>" of the tag's intervals added together, then
// "lines <n>": how many histograms it decoded. Run as a single-file
// program: java -cp /usr/share/java/hdrhistogram.jar HlogCheck.java FILE
// A log cut mid-line (a SIGKILLed writer) is read up to its last whole line:
// the reader (2.1.11) throws at the cut, which ends the log here, said on
// stderr; "lines" then tells how far it got.
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HlogCheck {
	public static void main(String[] args) throws Exception {
		HistogramLogReader reader = new HistogramLogReader(args[0]);
		Map<String, Histogram> sum = new TreeMap<>();
		Map<String, Integer> intervals = new TreeMap<>();
		int lines = 0;
		EncodableHistogram e;

		while ((e = next(reader)) != null) {
			Histogram h = (Histogram) e;
			String tag = h.getTag() == null ? "(none)" : h.getTag();

			lines++;
			sum.computeIfAbsent(tag, t -> {
				Histogram a = new Histogram(1, h.getHighestTrackableValue(), 1);
				a.setAutoResize(true);
				return a;
			}).add(h);
			intervals.merge(tag, 1, Integer::sum);
		}
		for (Map.Entry<String, Histogram> t : sum.entrySet()) {
			Histogram h = t.getValue();

			System.out.printf("%s %d %d %d %d %d%n", t.getKey(), intervals.get(t.getKey()),
					  h.getTotalCount(), h.getValueAtPercentile(50),
					  h.getValueAtPercentile(99), h.getMaxValue());
		}
		System.out.printf("lines %d%n", lines);
	}

	static EncodableHistogram next(HistogramLogReader reader) {
		try {
			return reader.nextIntervalHistogram();
		} catch (RuntimeException x) {
			System.err.println("HlogCheck: log ends in a line that does not decode: " + x);
			return null;
		}
	}
}
