//! Huffman code construction: length-limited code lengths (package-merge when the plain code is too deep) and canonical codes.

/// Returns Huffman code lengths of at most `limit` bits for `freqs` (0 for unused symbols).
///
/// A single used symbol gets a 1-bit code. The lengths are optimal when the plain Huffman code
/// fits the limit, and come from package-merge (optimal too) when it does not.
pub(super) fn huffman_lengths(freqs: &[u32], limit: u8) -> Vec<u8> {
    let mut lengths = vec![0u8; freqs.len()];
    let mut leaves: Vec<(u32, u16)> = freqs
        .iter()
        .enumerate()
        .filter(|&(_, &freq)| freq > 0)
        .map(|(symbol, &freq)| (freq, symbol as u16))
        .collect();
    if leaves.len() <= 1 {
        for &(_, symbol) in &leaves {
            if let Some(len) = lengths.get_mut(usize::from(symbol)) {
                *len = 1;
            }
        }
        return lengths;
    }
    leaves.sort_unstable();
    let count = leaves.len();
    // Two-queue Huffman: leaves come sorted, and the merged nodes are created in sorted order.
    let mut weight: Vec<u64> = leaves.iter().map(|&(freq, _)| u64::from(freq)).collect();
    let mut parent = vec![0usize; 2 * count - 1];
    let (mut next_leaf, mut next_inner) = (0, count);
    for new_node in count..2 * count - 1 {
        let mut pick = || {
            let leaf = weight.get(next_leaf).copied().filter(|_| next_leaf < count);
            let inner = weight
                .get(next_inner)
                .copied()
                .filter(|_| next_inner < new_node);
            match (leaf, inner) {
                (Some(leaf_weight), Some(inner_weight)) if inner_weight < leaf_weight => {
                    next_inner += 1;
                    next_inner - 1
                }
                (Some(_), _) => {
                    next_leaf += 1;
                    next_leaf - 1
                }
                _ => {
                    next_inner += 1;
                    next_inner - 1
                }
            }
        };
        let first = pick();
        let second = pick();
        let sum =
            weight.get(first).copied().unwrap_or(0) + weight.get(second).copied().unwrap_or(0);
        weight.push(sum);
        if let Some(slot) = parent.get_mut(first) {
            *slot = new_node;
        }
        if let Some(slot) = parent.get_mut(second) {
            *slot = new_node;
        }
    }
    // Parents come after their children, so depths can be filled from the root down.
    let mut depth = vec![0u8; 2 * count - 1];
    for node in (0..2 * count - 2).rev() {
        let up = parent
            .get(node)
            .and_then(|&up| depth.get(up))
            .copied()
            .unwrap_or(0);
        if let Some(slot) = depth.get_mut(node) {
            *slot = up.saturating_add(1);
        }
    }
    let longest = depth.iter().take(count).copied().max().unwrap_or(0);
    let leaf_lengths = if longest > limit {
        package_merge(&leaves, limit)
    } else {
        depth.truncate(count);
        depth
    };
    for (&(_, symbol), &len) in leaves.iter().zip(&leaf_lengths) {
        if let Some(slot) = lengths.get_mut(usize::from(symbol)) {
            *slot = len;
        }
    }
    lengths
}

/// Returns optimal code lengths of at most `limit` bits for `leaves` (sorted by increasing
/// frequency, at least two, at most `1 << limit`), by the package-merge algorithm.
pub(super) fn package_merge(leaves: &[(u32, u16)], limit: u8) -> Vec<u8> {
    let count = leaves.len();
    // Items are leaves (indices below `count`) or packages of two earlier items.
    let mut weight: Vec<u64> = leaves.iter().map(|&(freq, _)| u64::from(freq)).collect();
    let mut children: Vec<(u32, u32)> = vec![(0, 0); count];
    let mut list: Vec<u32> = (0..count as u32).collect();
    for _ in 1..limit {
        let mut packages = Vec::with_capacity(list.len() / 2);
        for pair in list.chunks_exact(2) {
            let sum = pair
                .iter()
                .map(|&item| weight.get(item as usize).copied().unwrap_or(0))
                .sum();
            packages.push(weight.len() as u32);
            weight.push(sum);
            children.push((pair[0], pair[1]));
        }
        // Merge the leaves with the packages by weight, leaves first on ties.
        let mut merged = Vec::with_capacity(count + packages.len());
        let (mut leaf, mut package) = (0usize, 0usize);
        while leaf < count || package < packages.len() {
            let leaf_weight = weight.get(leaf).copied().filter(|_| leaf < count);
            let package_item = packages.get(package).copied();
            let package_weight = package_item.and_then(|item| weight.get(item as usize).copied());
            match (leaf_weight, package_weight) {
                (Some(lw), Some(pw)) if pw < lw => {
                    merged.push(package_item.unwrap_or(0));
                    package += 1;
                }
                (Some(_), _) => {
                    merged.push(leaf as u32);
                    leaf += 1;
                }
                (None, _) => {
                    merged.push(package_item.unwrap_or(0));
                    package += 1;
                }
            }
        }
        list = merged;
    }
    // A leaf's code length is the number of times it occurs in the first 2n - 2 items.
    let mut lengths = vec![0u8; count];
    let mut stack: Vec<u32> = list.iter().take(2 * count - 2).copied().collect();
    while let Some(item) = stack.pop() {
        let item = item as usize;
        if item < count {
            if let Some(len) = lengths.get_mut(item) {
                *len += 1;
            }
        } else if let Some(&(left, right)) = children.get(item) {
            stack.push(left);
            stack.push(right);
        }
    }
    lengths
}

/// Returns the canonical codes of `lengths`, bit-reversed so they can be written least
/// significant bit first.
pub(super) fn canonical_codes(lengths: &[u8]) -> Vec<u16> {
    let mut count = [0u16; 16];
    for &len in lengths {
        if let Some(slot) = count.get_mut(usize::from(len)) {
            *slot += 1;
        }
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&len| {
            let Some(slot) = next.get_mut(usize::from(len)).filter(|_| len > 0) else {
                return 0;
            };
            let code = *slot;
            *slot += 1;
            code.reverse_bits() >> (16 - u32::from(len))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that `lengths` describe a complete prefix code within `limit` bits.
    fn assert_complete(lengths: &[u8], limit: u8) {
        let used: Vec<u8> = lengths.iter().copied().filter(|&len| len > 0).collect();
        assert!(used.iter().all(|&len| len <= limit), "{lengths:?}");
        if used.len() > 1 {
            let kraft: u64 = used.iter().map(|&len| 1u64 << (limit - len)).sum();
            assert_eq!(kraft, 1u64 << limit, "{lengths:?}");
        }
    }

    #[test]
    fn huffman_lengths_respect_the_limit() {
        // Fibonacci frequencies give a plain Huffman code as deep as there are symbols.
        let mut fibonacci = vec![1u32, 1];
        while fibonacci.len() < 30 {
            let next = fibonacci[fibonacci.len() - 1] + fibonacci[fibonacci.len() - 2];
            fibonacci.push(next);
        }
        for limit in [7, 15] {
            let lengths = huffman_lengths(&fibonacci, limit);
            assert_complete(&lengths, limit);
            assert_eq!(lengths.iter().max(), Some(&limit));
        }
        // Package-merge is optimal: here it matches the plain Huffman code, which fits.
        let freqs = [5u32, 9, 12, 13, 16, 45];
        let merged = package_merge(&[(5, 0), (9, 1), (12, 2), (13, 3), (16, 4), (45, 5)], 15);
        assert_eq!(merged, huffman_lengths(&freqs, 15));
        assert_eq!(huffman_lengths(&[0, 3, 0], 15), vec![0, 1, 0]);
        assert_eq!(huffman_lengths(&[0, 0], 15), vec![0, 0]);
        assert_complete(&huffman_lengths(&[1; 286], 15), 15);
    }
}
