//! The FPME fuzz check on random inputs.

mod fuzzing_fair {
    use metric_elicitation_testkit::fair::*;
    use rand::SeedableRng;

    /// Random cases reach both endings and violate nothing.
    #[test]
    fn random_cases() {
        use rand::Rng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let (mut estimates, mut stopped) = (0, 0);
        for i in 0..48 {
            let len = [0usize, 64, 4096][i % 3];
            let data: Vec<u8> = (0..16 + len).map(|_| rng.random()).collect();
            let case = FpmeCase::from_bytes(&data).unwrap();
            match check(&case) {
                Ok(Ending::Estimate) => estimates += 1,
                Ok(Ending::Stopped) => stopped += 1,
                Err(violation) => panic!("{violation}"),
            }
        }
        println!("{estimates} estimates, {stopped} stopped");
        assert!(
            estimates > 5 && stopped > 5,
            "{estimates} estimates, {stopped} stopped"
        );
    }
}
